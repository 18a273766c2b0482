-- Memory at a million facts (issue 41): a fact's words go to facts_fts from the statement that
-- stores it (MemoryStore::insert_many: one statement a batch), not from a trigger on each row.
-- FTS5 writes out what it holds at the end of every statement, so the trigger made a new index
-- segment per fact, and words were most of an import's time (55 of 75 µs a fact at 100,000).
DROP TRIGGER facts_fts_insert;
