-- Full-text search for tasks (issue 7): the task list's search over names, descriptions, briefs
-- and notes, and each task's own conversation (its chat, answers, run transcripts and logs) for
-- the run tools search_task_conversation / read_task_conversation. Both are kept by the store.
CREATE VIRTUAL TABLE task_search USING fts5(task_id UNINDEXED, name, description, brief, notepad);

CREATE VIRTUAL TABLE task_conversation USING fts5(
    task_id UNINDEXED,
    ref UNINDEXED,
    source UNINDEXED,
    author UNINDEXED,
    text
);
