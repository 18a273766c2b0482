-- "Make this a rule?" cards from chat messages (#130). They belong to their chat: deleting the
-- chat deletes them. keys and targets are JSON lists in the contract's shape.
CREATE TABLE rule_proposals (
    id          TEXT PRIMARY KEY NOT NULL,
    session_id  TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    message_id  TEXT NOT NULL,
    said        TEXT NOT NULL,
    rule        TEXT NOT NULL CHECK (rule IN ('never', 'ask')),
    keys        TEXT NOT NULL DEFAULT '[]',
    targets     TEXT NOT NULL DEFAULT '[]',
    status      TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined')),
    created_at  TEXT NOT NULL,
    decided_at  TEXT
);
CREATE INDEX rule_proposals_session ON rule_proposals (session_id, status, created_at);
