-- Turns accepted for a thread and not yet run, oldest first by seq. The
-- message is the user's, kept whole (files inline): it belongs to no
-- thread until its turn runs. No foreign key to keel_threads: a turn may
-- be the first of a thread not made yet. Times are Unix milliseconds
-- (UTC).
CREATE TABLE keel_turns (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,
    agent_id    TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    thread_id   TEXT NOT NULL,
    message     BLOB NOT NULL,
    options     BLOB NOT NULL,
    queued_at   INTEGER NOT NULL
);
CREATE INDEX keel_turns_by_thread ON keel_turns (thread_id, seq);
CREATE INDEX keel_turns_by_resource ON keel_turns (resource_id);
