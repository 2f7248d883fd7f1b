-- Threads, their messages, and the file blobs messages hold.
-- Times are Unix milliseconds (UTC).

CREATE TABLE threads (
    id          TEXT PRIMARY KEY,
    resource_id TEXT NOT NULL,
    title       TEXT NOT NULL,
    metadata    TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX threads_by_created ON threads (resource_id, created_at, id);
CREATE INDEX threads_by_updated ON threads (resource_id, updated_at, id);

-- seq orders messages saved with the same time in the order they were saved.
CREATE TABLE messages (
    thread_id  TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    role       TEXT NOT NULL,
    parts      TEXT NOT NULL,
    metadata   TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (thread_id, id)
);
CREATE INDEX messages_in_order ON messages (thread_id, created_at, seq);

-- A blob is file content addressed by the hex SHA-256 of data.
CREATE TABLE blobs (
    digest TEXT PRIMARY KEY,
    size   INTEGER NOT NULL,
    data   BLOB NOT NULL
);

-- The blobs each message holds; a blob no row refers to is deleted.
CREATE TABLE message_blobs (
    thread_id  TEXT NOT NULL,
    message_id TEXT NOT NULL,
    digest     TEXT NOT NULL REFERENCES blobs (digest),
    PRIMARY KEY (thread_id, message_id, digest),
    FOREIGN KEY (thread_id, message_id) REFERENCES messages (thread_id, id) ON DELETE CASCADE
);
CREATE INDEX message_blobs_by_digest ON message_blobs (digest);
