-- Tables take the names they have in PostgreSQL, so that both stores run
-- the same statements.
ALTER TABLE threads RENAME TO keel_threads;
ALTER TABLE messages RENAME TO keel_messages;
ALTER TABLE blobs RENAME TO keel_blobs;
ALTER TABLE message_blobs RENAME TO keel_message_blobs;

-- Each thread counts its messages as they are saved, so that neither a
-- window of the last messages nor a list of threads counts rows.
ALTER TABLE keel_threads ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
UPDATE keel_threads SET message_count = (SELECT COUNT(*) FROM keel_messages WHERE thread_id = keel_threads.id);

-- A new message's seq is one past its thread's last, found at the end of
-- this index rather than by reading the thread's rows.
CREATE UNIQUE INDEX keel_messages_by_seq ON keel_messages (thread_id, seq);
