-- The running summary of a long chat: older turns are summarized into `summary`, and only the
-- messages after `summary_upto` (a seq) are sent to the model beside it.
ALTER TABLE chat_sessions ADD COLUMN summary TEXT;
ALTER TABLE chat_sessions ADD COLUMN summary_upto INTEGER NOT NULL DEFAULT 0;
