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

-- The count goes up with each message inserted, in the INSERT itself;
-- messages leave only with their thread. A message's seq, which orders
-- messages of one time, is its number in the thread: 1 to message_count
-- (as the first schema gave them), so the next is message_count + 1, read
-- from the thread's row rather than from the thread's messages.
CREATE TRIGGER keel_messages_counted AFTER INSERT ON keel_messages
BEGIN
    UPDATE keel_threads SET message_count = message_count + 1 WHERE id = NEW.thread_id;
END;
