-- Helpers the assistant starts from a chat (contract section 10): one row each, with its log.
CREATE TABLE subagents (
    subagent_id TEXT PRIMARY KEY,
    session_id TEXT,
    parent_call_id TEXT NOT NULL DEFAULT '',
    goal TEXT NOT NULL,
    status TEXT NOT NULL,
    background INTEGER NOT NULL DEFAULT 0,
    summary TEXT,
    error TEXT,
    tool_calls INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    events TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX subagents_by_session ON subagents (session_id, started_at);
