-- What a vision model wrote of an image, for models that see none: one
-- row per describing model and image digest. CreatedAt is Unix
-- milliseconds (UTC).
CREATE TABLE keel_file_descriptions (
    model      TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    text       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (model, sha256)
);
