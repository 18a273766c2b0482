-- Task memory (issue 7): the notes recurring runs keep for each other, the task brief, and what
-- each run needs for both. Older tasks load fine: every column is nullable or has a default.
ALTER TABLE tasks ADD COLUMN notepad TEXT;
-- The app whose content shaped the notes (outside content), NULL when clean.
ALTER TABLE tasks ADD COLUMN notepad_untrusted TEXT;
-- Bumped by every edit or Clear from the person: a run that started before can't write the notes.
ALTER TABLE tasks ADD COLUMN notepad_version INTEGER NOT NULL DEFAULT 0;
-- "Clear and forget earlier runs": runs finished before this moment are not remembered.
ALTER TABLE tasks ADD COLUMN forget_before TEXT;
-- The brief (JSON), kept by the runs and by the person.
ALTER TABLE tasks ADD COLUMN brief TEXT;

-- Notes a run wrote, kept until the run records its final answer.
ALTER TABLE task_runs ADD COLUMN pending_notepad TEXT;
-- The notepad version the run started with.
ALTER TABLE task_runs ADD COLUMN notepad_version INTEGER NOT NULL DEFAULT 0;
-- The app whose content the run read (its outside-content mark), NULL when clean.
ALTER TABLE task_runs ADD COLUMN untrusted TEXT;
ALTER TABLE task_runs ADD COLUMN brief_updated INTEGER NOT NULL DEFAULT 0;
