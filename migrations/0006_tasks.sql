-- Tasks and their runs (contract section 4). Nested objects are JSON columns in the contract's
-- shape; the full progress log of a run is its own table (GET .../runs/{run_id}/events).
CREATE TABLE tasks (
    id                   TEXT PRIMARY KEY NOT NULL,
    name                 TEXT NOT NULL,
    description          TEXT NOT NULL DEFAULT '',
    prompt               TEXT NOT NULL DEFAULT '',
    status               TEXT NOT NULL,
    priority             INTEGER NOT NULL DEFAULT 1,
    assignee             TEXT NOT NULL DEFAULT 'ai',
    task_type            TEXT NOT NULL DEFAULT 'single',
    schedule             TEXT,
    script               TEXT,
    plan                 TEXT NOT NULL DEFAULT '[]',
    chat_history         TEXT NOT NULL DEFAULT '[]',
    clarifying_questions TEXT NOT NULL DEFAULT '[]',
    swarm_details        TEXT,
    enabled              INTEGER NOT NULL DEFAULT 1,
    model                TEXT,
    browser_profile      TEXT,
    deliver_to           TEXT NOT NULL DEFAULT '"default"',
    original_context     TEXT NOT NULL DEFAULT '{}',
    error                TEXT,
    next_execution_at    TEXT,
    last_execution_at    TEXT,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL
);
CREATE INDEX tasks_due ON tasks (next_execution_at) WHERE next_execution_at IS NOT NULL;

CREATE TABLE task_runs (
    id                   TEXT PRIMARY KEY NOT NULL,
    task_id              TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    status               TEXT NOT NULL,
    created_at           TEXT NOT NULL,
    execution_start_time TEXT,
    finished_at          TEXT,
    plan                 TEXT NOT NULL DEFAULT '[]',
    trigger_event_data   TEXT,
    result               TEXT,
    error                TEXT,
    retry_of             TEXT,
    -- The question a waiting run asks, with the fields the API never shows (kind details).
    pending_question     TEXT,
    last_activity_at     TEXT,
    memory_sources       TEXT NOT NULL DEFAULT '[]',
    -- The run's model transcript: its checkpoint for resuming, answering and retrying.
    transcript           TEXT NOT NULL DEFAULT '[]',
    -- {base, max, used}, each {steps, seconds, tokens, cost_usd}.
    limits               TEXT
);
CREATE INDEX task_runs_task ON task_runs (task_id, created_at);

CREATE TABLE task_run_events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id    TEXT NOT NULL REFERENCES task_runs (id) ON DELETE CASCADE,
    timestamp TEXT NOT NULL,
    message   TEXT NOT NULL
);
CREATE INDEX task_run_events_run ON task_run_events (run_id, id);
