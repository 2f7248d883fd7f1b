-- The references of files uploaded to a provider's own file store: one row
-- per scope (provider, base URL, key hash) and file digest. Times are Unix
-- milliseconds (UTC).
CREATE TABLE keel_provider_files (
    scope      TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    ref        TEXT NOT NULL,
    media_type TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (scope, sha256)
);
