-- How many facts each word appears in (FTS5's own vocabulary), so a search can leave out words
-- that most facts contain: they barely change the ranking and make FTS5 score every fact.
CREATE VIRTUAL TABLE facts_fts_terms USING fts5vocab(facts_fts, 'row');
