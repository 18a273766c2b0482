-- Triggered tasks (issue 8): which outside items each task has handled, so a task handles an
-- item at most once however it is delivered (a webhook, a change feed or a poll). The first
-- delivery inserts the row (INSERT OR IGNORE) and starts the run; later ones find it.
CREATE TABLE task_trigger_items (
    task_id    TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    item_id    TEXT NOT NULL,
    run_id     TEXT,
    handled_at TEXT NOT NULL,
    PRIMARY KEY (task_id, item_id)
) WITHOUT ROWID;
