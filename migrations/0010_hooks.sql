-- Webhooks (contract section 16): the hooks a person made, the calls they accepted (each on
-- disk before its answer), and the shared "already seen" record later change feeds and polls use.

CREATE TABLE hooks (
    id             TEXT PRIMARY KEY NOT NULL,
    name           TEXT NOT NULL,
    -- Only the SHA-256 of the secret (hex); the secret itself is shown once and never stored.
    secret_sha256  TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    last_called_at TEXT,
    calls          INTEGER NOT NULL DEFAULT 0
);

-- Every accepted call, written (in small group commits) before the caller gets its answer.
-- Kept 30 days, like the seen record.
CREATE TABLE hook_calls (
    id          TEXT PRIMARY KEY NOT NULL,
    hook_id     TEXT NOT NULL,
    received_at TEXT NOT NULL,
    -- The item published on source.items, as JSON.
    item        TEXT NOT NULL
);
CREATE INDEX hook_calls_hook ON hook_calls (hook_id);
CREATE INDEX hook_calls_received ON hook_calls (received_at);

-- Keys of items already published per source (gmail message ids, calendar <id>:<updated>, ...),
-- so a change feed and a poll never emit the same item twice. Keys older than 30 days are
-- pruned on write.
CREATE TABLE seen_items (
    source  TEXT NOT NULL,
    key     TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (source, key)
) WITHOUT ROWID;
CREATE INDEX seen_items_seen_at ON seen_items (seen_at);
