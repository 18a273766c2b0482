-- One row per model call: who it was for, how many tokens, and what it cost when the price is
-- known. GET /api/usage sums these.
CREATE TABLE model_usage (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    at                TEXT NOT NULL,
    model             TEXT NOT NULL,
    source            TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost_usd          REAL
);
CREATE INDEX model_usage_at ON model_usage (at);
