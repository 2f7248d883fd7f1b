-- Each thread counts its messages as they are saved, so that neither a
-- window of the last messages nor a list of threads counts rows.
ALTER TABLE keel_threads ADD COLUMN message_count bigint NOT NULL DEFAULT 0;
UPDATE keel_threads SET message_count = (SELECT COUNT(*) FROM keel_messages WHERE thread_id = keel_threads.id);

-- A new message's seq is one past its thread's last (writers of a thread
-- take turns on its row), found at the end of this index, as in SQLite:
-- the statements are the same in both stores. seq values already given
-- by the identity stay, and keep their order.
ALTER TABLE keel_messages ALTER COLUMN seq DROP IDENTITY;
CREATE UNIQUE INDEX keel_messages_by_seq ON keel_messages (thread_id, seq);
