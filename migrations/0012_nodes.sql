-- Paired devices (contract section 13). A device's token is never stored, only its SHA-256;
-- the desktop app's own node has none (it connects with the gateway token).

CREATE TABLE nodes (
    node_id      TEXT PRIMARY KEY NOT NULL,
    name         TEXT NOT NULL,
    kind         TEXT NOT NULL,
    platform     TEXT NOT NULL DEFAULT '',
    app_version  TEXT NOT NULL DEFAULT '',
    -- JSON array of capability names from the device's last hello.
    capabilities TEXT NOT NULL DEFAULT '[]',
    token_sha256 TEXT UNIQUE,
    battery      INTEGER,
    charging     INTEGER,
    worn         INTEGER,
    created_at   TEXT NOT NULL,
    last_seen_at TEXT
);

-- Tokens of removed devices, so a removed device hears "revoked" rather than "unknown token".
CREATE TABLE node_revoked_tokens (
    token_sha256 TEXT PRIMARY KEY NOT NULL,
    revoked_at   TEXT NOT NULL
) WITHOUT ROWID;
