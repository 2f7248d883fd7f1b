-- The references of files uploaded to a provider's own file store: one row
-- per scope (provider, base URL, key hash) and file digest.
CREATE TABLE keel_provider_files (
    scope      text NOT NULL,
    sha256     text NOT NULL,
    ref        text NOT NULL,
    media_type text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (scope, sha256)
);
