-- Chats and their transcripts. Messages keep the contract's row shape; JSON columns hold the
-- nested lists. The full-text index mirrors message content for GET /api/sessions/search.
CREATE TABLE chat_sessions (
    id            TEXT PRIMARY KEY NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    channel       TEXT NOT NULL DEFAULT 'desktop',
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    -- The app whose content the chat read ('' when clean), NULL before its first turn.
    untrusted     TEXT,
    -- JSON list of web hosts the chat loaded, NULL when none.
    visited_hosts TEXT
);
CREATE INDEX chat_sessions_updated ON chat_sessions (updated_at);

CREATE TABLE chat_messages (
    id             TEXT PRIMARY KEY NOT NULL,
    session_id     TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    seq            INTEGER NOT NULL,
    role           TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    content        TEXT NOT NULL,
    thinking       TEXT,
    tool_calls     TEXT NOT NULL DEFAULT '[]',
    tool_call_id   TEXT,
    name           TEXT,
    attachments    TEXT NOT NULL DEFAULT '[]',
    interjection   INTEGER NOT NULL DEFAULT 0,
    memory_sources TEXT NOT NULL DEFAULT '[]',
    created_at     TEXT NOT NULL,
    UNIQUE (session_id, seq)
);

CREATE VIRTUAL TABLE chat_messages_fts USING fts5(content, content = 'chat_messages', content_rowid = 'rowid');
CREATE TRIGGER chat_messages_fts_insert AFTER INSERT ON chat_messages BEGIN
    INSERT INTO chat_messages_fts (rowid, content) VALUES (new.rowid, new.content);
END;
CREATE TRIGGER chat_messages_fts_delete AFTER DELETE ON chat_messages BEGIN
    INSERT INTO chat_messages_fts (chat_messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
END;
CREATE TRIGGER chat_messages_fts_update AFTER UPDATE OF content ON chat_messages BEGIN
    INSERT INTO chat_messages_fts (chat_messages_fts, rowid, content) VALUES ('delete', old.rowid, old.content);
    INSERT INTO chat_messages_fts (rowid, content) VALUES (new.rowid, new.content);
END;
