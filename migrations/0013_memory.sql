-- Memory (issue 16, contract section 7): facts about the person, their word index, their vectors,
-- summaries of past chats, and the log of what memory upkeep did. The sqlite-vec tables
-- (facts_vec: each vector as bits, for a fast first pass; summaries_vec) are made by the memory
-- service when the embedding model first answers, because their dimension is the model's (meta
-- `memory.index` = {model, dimension}).
CREATE TABLE facts (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    content           TEXT    NOT NULL,
    topics            TEXT    NOT NULL DEFAULT '[]',   -- JSON array of the v2 topic names
    source            TEXT    NOT NULL DEFAULT 'manual',
    memory_type       TEXT    NOT NULL DEFAULT 'long-term' CHECK (memory_type IN ('long-term', 'short-term')),
    created_at        TEXT    NOT NULL,
    updated_at        TEXT    NOT NULL,
    expires_at        TEXT,
    previous_content  TEXT,
    status            TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'pending')),
    -- Where a held fact came from (ReviewNote); null for active facts that were never held.
    review_from       TEXT,
    review_snippet    TEXT,
    review_session_id TEXT,
    recall_count      INTEGER NOT NULL DEFAULT 0,
    last_recalled_at  TEXT
);
CREATE INDEX facts_by_status_created ON facts (status, created_at);
CREATE INDEX facts_by_source ON facts (source);

-- Words of every fact (pending ones too: the review inbox filters by status).
CREATE VIRTUAL TABLE facts_fts USING fts5(content, content = 'facts', content_rowid = 'id');
CREATE TRIGGER facts_fts_insert AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts (rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER facts_fts_delete AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts (facts_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER facts_fts_update AFTER UPDATE OF content ON facts BEGIN
    INSERT INTO facts_fts (facts_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO facts_fts (rowid, content) VALUES (new.id, new.content);
END;

-- Each remembered fact's vector as float32 (the embedding model's own), read by id: the exact
-- rerank of the bit search's candidates, similarity scores and the memory map.
CREATE TABLE fact_vectors (
    id        INTEGER PRIMARY KEY REFERENCES facts (id) ON DELETE CASCADE,
    embedding BLOB NOT NULL
);

-- Summaries of older parts of chats; `untrusted` is the chat's mark when written.
CREATE TABLE summaries (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    content    TEXT NOT NULL,
    start_at   TEXT NOT NULL,
    end_at     TEXT NOT NULL,
    session_id TEXT,
    untrusted  TEXT,
    -- the chat's last message (chat_messages.seq) the summary covers; the next starts after it
    last_seq   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE INDEX summaries_by_session ON summaries (session_id, end_at);

-- What memory upkeep did (summary_created, later dreams and promotions).
CREATE TABLE evolution_log (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,
    detail     TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
);
