-- What a vision model wrote of an image, for models that see none: one
-- row per describing model and image digest.
CREATE TABLE keel_file_descriptions (
    model      text NOT NULL,
    sha256     text NOT NULL,
    text       text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (model, sha256)
);
