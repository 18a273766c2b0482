-- Apps (contract section 5): where each connection stands, its privacy filters and its change
-- feed's cursor. Tokens, passwords and keys are never here: they live in the keychain.

CREATE TABLE integration_state (
    id            TEXT PRIMARY KEY NOT NULL,
    -- disconnected, connecting, connected or error
    status        TEXT NOT NULL,
    error         TEXT,
    account_label TEXT,
    updated_at    TEXT NOT NULL
);

CREATE TABLE privacy_filters (
    id       TEXT PRIMARY KEY NOT NULL,
    -- JSON arrays of strings
    keywords TEXT NOT NULL DEFAULT '[]',
    emails   TEXT NOT NULL DEFAULT '[]',
    labels   TEXT NOT NULL DEFAULT '[]'
);

-- One row per change feed (gmail, gcalendar, email_imap). A failed sync never moves the cursor.
CREATE TABLE feed_state (
    source          TEXT PRIMARY KEY NOT NULL,
    -- The feed's own cursor as JSON: a Gmail history id, a calendar sync token, IMAP UIDs per folder.
    cursor          TEXT,
    last_sync_at    TEXT,
    last_success_at TEXT,
    last_error      TEXT,
    note            TEXT,
    failures        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    emitted         INTEGER NOT NULL DEFAULT 0
);
