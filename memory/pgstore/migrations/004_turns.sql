-- Turns accepted for a thread and not yet run, oldest first by seq. The
-- message is the user's, kept whole (files inline): it belongs to no
-- thread until its turn runs. No foreign key to keel_threads: a turn may
-- be the first of a thread not made yet.
CREATE TABLE keel_turns (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    agent_id    text NOT NULL,
    resource_id text NOT NULL,
    thread_id   text NOT NULL,
    message     bytea NOT NULL,
    options     bytea NOT NULL,
    queued_at   timestamptz NOT NULL
);
CREATE INDEX keel_turns_by_thread ON keel_turns (thread_id, seq);
CREATE INDEX keel_turns_by_resource ON keel_turns (resource_id);
