-- Each thread counts its messages as they are saved, so that neither a
-- window of the last messages nor a list of threads counts rows.
ALTER TABLE keel_threads ADD COLUMN message_count bigint NOT NULL DEFAULT 0;
UPDATE keel_threads SET message_count = (SELECT COUNT(*) FROM keel_messages WHERE thread_id = keel_threads.id);

-- A message's seq, which orders messages of one time, becomes its number
-- in the thread, 1 to message_count, as in SQLite: the next is then
-- message_count + 1, read from the thread's row (writers of a thread take
-- turns on it), and both stores run the same insert. The identity's
-- values, shared by all threads, are renumbered per thread in their order.
ALTER TABLE keel_messages ALTER COLUMN seq DROP IDENTITY;
UPDATE keel_messages m SET seq = n.seq
    FROM (SELECT thread_id, id, row_number() OVER (PARTITION BY thread_id ORDER BY seq) AS seq FROM keel_messages) n
    WHERE m.thread_id = n.thread_id AND m.id = n.id;

-- The count goes up with each message inserted, in the INSERT itself
-- (no statement more per save); messages leave only with their thread,
-- so seq and the count stay in step.
CREATE FUNCTION keel_count_message() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE keel_threads SET message_count = message_count + 1 WHERE id = NEW.thread_id;
    RETURN NULL;
END
$$;
CREATE TRIGGER keel_messages_counted AFTER INSERT ON keel_messages
    FOR EACH ROW EXECUTE FUNCTION keel_count_message();
