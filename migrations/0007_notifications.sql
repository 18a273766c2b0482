-- The notifications feed (contract section 6). payload is the contract's free-form JSON object;
-- task_id names the task a notification is about (kept when the task goes away, so the feed
-- still says what happened). Times are fixed-width RFC 3339, so they sort as text.
CREATE TABLE notifications (
    id         TEXT PRIMARY KEY NOT NULL,
    kind       TEXT NOT NULL,
    title      TEXT NOT NULL,
    message    TEXT NOT NULL DEFAULT '',
    payload    TEXT NOT NULL DEFAULT '{}',
    task_id    TEXT,
    read       INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE INDEX notifications_created ON notifications (created_at);
CREATE INDEX notifications_task ON notifications (task_id) WHERE task_id IS NOT NULL;
