-- What each model refused: one row per provider, model and media type.
-- A lookup reads the rows of one provider and model, a prefix of the key.
CREATE TABLE keel_refusals (
    provider   text NOT NULL,
    model      text NOT NULL,
    media_type text NOT NULL,
    learned_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    status     integer NOT NULL,
    reason     text NOT NULL,
    PRIMARY KEY (provider, model, media_type)
);
