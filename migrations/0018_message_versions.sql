-- Regenerated answers and failed turns (issue 32). An answer asked for again keeps its earlier
-- versions: every row of a versioned answer names the question it answers (`answer_to`, a user
-- message id) and its version (1, 2, ...); only the shown version has `hidden = 0`, and only
-- rows with `hidden = 0` are listed, searched or sent to a model. Rows of an answer never
-- regenerated keep `answer_to` NULL. A turn that failed is saved as an assistant row with its
-- error (and no content), so reopening the chat still shows it with Try again.
ALTER TABLE chat_messages ADD COLUMN answer_to TEXT;
ALTER TABLE chat_messages ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chat_messages ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chat_messages ADD COLUMN error TEXT;
CREATE INDEX chat_messages_answer_to ON chat_messages (session_id, answer_to) WHERE answer_to IS NOT NULL;
