package sqlstore

import (
	"strconv"

	"github.com/keel-go/keel/memory"
)

// The statements of the SQL stores, the same in both databases: tables are
// prefixed keel_ (a PostgreSQL database may hold others), placeholders are
// PostgreSQL's ($1, which SQLite reads as the first argument too), upserts
// are ON CONFLICT, and times are time.Time for each Tx to convert.
const (
	threadColumns = `id, resource_id, title, metadata, created_at, updated_at, message_count`

	qGetThread    = `SELECT ` + threadColumns + ` FROM keel_threads WHERE id = $1 AND resource_id = $2`
	qThreadOwner  = `SELECT resource_id FROM keel_threads WHERE id = $1`
	qInsertThread = `INSERT INTO keel_threads (id, resource_id, title, metadata, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`
	qUpdateThread = `UPDATE keel_threads SET title = $1, metadata = $2, updated_at = $3
		WHERE id = $4 AND resource_id = $5 RETURNING ` + threadColumns
	qCountThreads = `SELECT COUNT(*) FROM keel_threads WHERE resource_id = $1`
	qDeleteThread = `DELETE FROM keel_threads WHERE id = $1`
	// qTouchThread sets a thread's UpdatedAt if it is the resource's: no
	// row changed means no such thread, as far as that resource may know.
	// In PostgreSQL it also locks the row until the transaction ends, so
	// that writers of one thread take turns.
	qTouchThread  = `UPDATE keel_threads SET updated_at = $1 WHERE id = $2 AND resource_id = $3`
	qThreadWindow = `SELECT resource_id, message_count FROM keel_threads WHERE id = $1`

	messageColumns = `id, role, parts, metadata, created_at`
	qReadMessages  = `SELECT ` + messageColumns + ` FROM keel_messages
		WHERE thread_id = $1 ORDER BY created_at, seq LIMIT $2 OFFSET $3`
	// qReadLast reads the last messages newest first, from the end of the
	// index on (thread_id, created_at, seq): only those rows.
	qReadLast = `SELECT ` + messageColumns + ` FROM keel_messages
		WHERE thread_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`
	// qInsertMessage inserts a message unless its ID is stored in the
	// thread already, which it leaves to the replacing path. Its seq, its
	// place among messages of the same time, is its number in the thread:
	// one past the thread's count, which a trigger of the schema raises
	// with each insert. Writers of one thread take turns, so no two get
	// the same.
	qInsertMessage = `INSERT INTO keel_messages (thread_id, id, seq, role, parts, metadata, created_at)
		VALUES ($1, $2, (SELECT message_count + 1 FROM keel_threads WHERE id = $1), $3, $4, $5, $6)
		ON CONFLICT (thread_id, id) DO NOTHING`
	qMessageCreated = `SELECT created_at FROM keel_messages WHERE thread_id = $1 AND id = $2`
	qReplaceMessage = `UPDATE keel_messages SET role = $1, parts = $2, metadata = $3, created_at = $4
		WHERE thread_id = $5 AND id = $6`

	qMessageDigests = `SELECT digest FROM keel_message_blobs WHERE thread_id = $1 AND message_id = $2`
	qUnholdDigests  = `DELETE FROM keel_message_blobs WHERE thread_id = $1 AND message_id = $2`
	qHoldDigest     = `INSERT INTO keel_message_blobs (thread_id, message_id, digest) VALUES ($1, $2, $3)`
	qThreadDigests  = `SELECT DISTINCT digest FROM keel_message_blobs WHERE thread_id = $1`
	qBlobKnown      = `SELECT COUNT(*) FROM keel_blobs WHERE digest = $1`
	qInsertBlob     = `INSERT INTO keel_blobs (digest, size, data) VALUES ($1, $2, $3) ON CONFLICT (digest) DO NOTHING`
	qLockBlob       = `SELECT 1 FROM keel_blobs WHERE digest = $1 FOR UPDATE`
	qReadBlob       = `SELECT size, data FROM keel_blobs WHERE digest = $1`
	qDropUnheldBlob = `DELETE FROM keel_blobs WHERE digest = $1
		AND NOT EXISTS (SELECT 1 FROM keel_message_blobs WHERE digest = $1)`
	qBlobStats = `SELECT COUNT(*), COALESCE(SUM(size), 0) FROM keel_blobs`

	refusalColumns = `provider, model, media_type, learned_at, expires_at, status, reason`
	qRecordRefusal = `INSERT INTO keel_refusals (` + refusalColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (provider, model, media_type) DO UPDATE SET learned_at = excluded.learned_at,
		expires_at = excluded.expires_at, status = excluded.status, reason = excluded.reason`
	qRefusals       = `SELECT ` + refusalColumns + ` FROM keel_refusals WHERE provider = $1 AND model = $2 AND expires_at > $3`
	qListRefusals   = `SELECT ` + refusalColumns + ` FROM keel_refusals`
	qForgetRefusals = `DELETE FROM keel_refusals`
)

// listThreads is the query of a page of threads in order (see
// [ThreadOrder]).
func listThreads(order string) string {
	return `SELECT ` + threadColumns + ` FROM keel_threads WHERE resource_id = $1 ORDER BY ` + order + ` LIMIT $2 OFFSET $3`
}

// Statements returns the text of every statement a store without row
// locks runs, for a store that prepares them when it opens: a statement
// prepared later, on the pool, while a call holds one of its connections,
// could wait for ever for another.
func Statements() []string {
	qs := []string{qGetThread, qThreadOwner, qInsertThread, qUpdateThread, qCountThreads, qDeleteThread,
		qTouchThread, qThreadWindow, qReadMessages, qReadLast, qInsertMessage, qMessageCreated,
		qReplaceMessage, qMessageDigests, qUnholdDigests, qHoldDigest, qThreadDigests, qBlobKnown, qInsertBlob,
		qReadBlob, qDropUnheldBlob, qBlobStats, qRecordRefusal, qRefusals, qListRefusals, qFileDescription, qRecordFileDescription,
		qQueueTurn, qThreadTurnCount, qResourceTurnCount, qNextTurn, qRemoveTurn, qRemoveThreadTurns, qQueuedThreads}
	for _, by := range []string{"createdAt", "updatedAt"} {
		for _, asc := range []bool{false, true} {
			_, order, err := ThreadOrder("r", memory.ListThreadsOptions{OrderBy: by, Ascending: asc})
			if err != nil {
				panic("sqlstore: thread order " + by + ": " + err.Error())
			}
			qs = append(qs, listThreads(order))
		}
	}
	for _, key := range [][3]string{{}, {"p"}, {"p", "m"}, {"p", "m", "t"}} {
		q, _ := forgetRefusals(key[0], key[1], key[2])
		qs = append(qs, q)
	}
	return qs
}

// lockThread is qThreadOwner locking the row, where the database has row
// locks.
func (s *Store) lockThread() string {
	if s.cfg.RowLocks {
		return qThreadOwner + ` FOR UPDATE`
	}
	return qThreadOwner
}

// forgetRefusals returns the DELETE of the entries key matches, and its
// arguments: the key's fields up to the first empty one.
func forgetRefusals(provider, model, mediaType string) (string, []any) {
	q, args := qForgetRefusals, []any{}
	for i, f := range [...]struct{ col, v string }{{"provider", provider}, {"model", model}, {"media_type", mediaType}} {
		if f.v == "" {
			break
		}
		if i == 0 {
			q += ` WHERE `
		} else {
			q += ` AND `
		}
		args = append(args, f.v)
		q += f.col + ` = $` + strconv.Itoa(i+1)
	}
	return q, args
}
