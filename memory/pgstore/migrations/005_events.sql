-- Live events too large for a notification (PostgreSQL takes 8000
-- bytes): stored here, and the notification names the row. Rows are
-- dropped after ten minutes; a listener reads one within milliseconds.
CREATE TABLE keel_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    topic      text NOT NULL,
    payload    bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX keel_events_by_created ON keel_events (created_at);
