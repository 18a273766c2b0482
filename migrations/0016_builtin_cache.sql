-- Answers of the built-in apps' providers kept for a short while (weather 10 minutes per place,
-- place look-ups a day), so a brief and a chat asking in the same minute make one request.
CREATE TABLE builtin_cache (
    key        TEXT PRIMARY KEY NOT NULL,
    body       TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
