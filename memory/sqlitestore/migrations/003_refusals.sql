-- What each model refused: one row per provider, model and media type.
-- A lookup reads the rows of one provider and model, a prefix of the key.
-- Times are Unix milliseconds (UTC).
CREATE TABLE keel_refusals (
    provider   TEXT NOT NULL,
    model      TEXT NOT NULL,
    media_type TEXT NOT NULL,
    learned_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    status     INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    PRIMARY KEY (provider, model, media_type)
);
