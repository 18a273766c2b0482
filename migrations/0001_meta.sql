-- Key/value facts the engine keeps between launches (stop.state, brief task ids, ...).
-- Values are JSON text so each owner keeps its own shape.
CREATE TABLE meta (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
