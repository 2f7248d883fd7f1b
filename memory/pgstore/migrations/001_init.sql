-- Threads, their messages, and the file blobs messages hold. Tables are
-- prefixed, as the database may be shared with other programs.

CREATE TABLE keel_threads (
    id          text PRIMARY KEY,
    resource_id text NOT NULL,
    title       text NOT NULL,
    metadata    text NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX keel_threads_by_created ON keel_threads (resource_id, created_at, id);
CREATE INDEX keel_threads_by_updated ON keel_threads (resource_id, updated_at, id);

-- seq orders messages saved with the same time in the order they were saved.
CREATE TABLE keel_messages (
    thread_id  text NOT NULL REFERENCES keel_threads (id) ON DELETE CASCADE,
    id         text NOT NULL,
    seq        bigint GENERATED ALWAYS AS IDENTITY,
    role       text NOT NULL,
    parts      text NOT NULL,
    metadata   text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (thread_id, id)
);
CREATE INDEX keel_messages_in_order ON keel_messages (thread_id, created_at, seq);

-- A blob is file content addressed by the hex SHA-256 of data.
CREATE TABLE keel_blobs (
    digest text PRIMARY KEY,
    size   bigint NOT NULL,
    data   bytea NOT NULL
);
-- Kept as it is: compressing random-looking files costs time and saves nothing.
ALTER TABLE keel_blobs ALTER COLUMN data SET STORAGE EXTERNAL;

-- The blobs each message holds; a blob no row refers to is deleted. The
-- foreign key to keel_blobs also locks a blob against deletion while a
-- message that holds it is being saved.
CREATE TABLE keel_message_blobs (
    thread_id  text NOT NULL,
    message_id text NOT NULL,
    digest     text NOT NULL REFERENCES keel_blobs (digest),
    PRIMARY KEY (thread_id, message_id, digest),
    FOREIGN KEY (thread_id, message_id) REFERENCES keel_messages (thread_id, id) ON DELETE CASCADE
);
CREATE INDEX keel_message_blobs_by_digest ON keel_message_blobs (digest);
