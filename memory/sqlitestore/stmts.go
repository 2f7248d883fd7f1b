package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
)

// The store's statements. Each is prepared once, when the store opens,
// and kept for its life: SQLite compiles a statement in about the time
// it takes to run a small one, so compiling each call's statements
// afresh would double its cost. database/sql then prepares a statement
// on each pooled connection the first time that connection runs it, and
// a transaction reuses its connection's.
const (
	threadColumns = `id, resource_id, title, metadata, created_at, updated_at`

	qGetThread    = `SELECT ` + threadColumns + ` FROM threads WHERE id = ? AND resource_id = ?`
	qThreadOwner  = `SELECT resource_id FROM threads WHERE id = ?`
	qInsertThread = `INSERT INTO threads (` + threadColumns + `) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	qUpdateThread = `UPDATE threads SET title = ?, metadata = ?, updated_at = ? WHERE id = ?`
	qCountThreads = `SELECT COUNT(*) FROM threads WHERE resource_id = ?`
	qDeleteThread = `DELETE FROM threads WHERE id = ?`
	// qTouchThread sets a thread's UpdatedAt if it is the resource's: no
	// row changed means no such thread, as far as that resource may know.
	qTouchThread = `UPDATE threads SET updated_at = ? WHERE id = ? AND resource_id = ?`

	// qThreadMessages checks a thread's owner and counts its messages in
	// one step.
	qThreadMessages = `SELECT resource_id, (SELECT COUNT(*) FROM messages WHERE thread_id = threads.id) FROM threads WHERE id = ?`
	qReadMessages   = `SELECT id, role, parts, metadata, created_at FROM messages
		WHERE thread_id = ? ORDER BY created_at, seq LIMIT ? OFFSET ?`
	// qInsertMessage inserts a message unless its ID is stored in the
	// thread already, which it leaves to the replacing path.
	qInsertMessage = `INSERT INTO messages (thread_id, id, seq, role, parts, metadata, created_at)
		VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = ?), ?, ?, ?, ?)
		ON CONFLICT (thread_id, id) DO NOTHING`
	qMessageCreated = `SELECT created_at FROM messages WHERE thread_id = ? AND id = ?`
	qReplaceMessage = `UPDATE messages SET role = ?, parts = ?, metadata = ?, created_at = ? WHERE thread_id = ? AND id = ?`

	qMessageDigests = `SELECT digest FROM message_blobs WHERE thread_id = ? AND message_id = ?`
	qUnholdDigests  = `DELETE FROM message_blobs WHERE thread_id = ? AND message_id = ?`
	qHoldDigest     = `INSERT INTO message_blobs (thread_id, message_id, digest) VALUES (?, ?, ?)`
	qThreadDigests  = `SELECT DISTINCT digest FROM message_blobs WHERE thread_id = ?`
	qBlobKnown      = `SELECT COUNT(*) FROM blobs WHERE digest = ?`
	qInsertBlob     = `INSERT INTO blobs (digest, size, data) VALUES (?, ?, ?)`
	qReadBlob       = `SELECT size, data FROM blobs WHERE digest = ?`
	qDropUnheldBlob = `DELETE FROM blobs WHERE digest = ? AND NOT EXISTS (SELECT 1 FROM message_blobs WHERE digest = ?)`
	qBlobStats      = `SELECT COUNT(*), COALESCE(SUM(size), 0) FROM blobs`

	// Each write of a group commit runs in a savepoint.
	qSavepoint  = `SAVEPOINT write`
	qRollbackTo = `ROLLBACK TO write`
	qRelease    = `RELEASE write`
)

// statements lists every statement the store prepares, with each order
// of threads a list may ask for.
func statements() []string {
	qs := []string{qGetThread, qThreadOwner, qInsertThread, qUpdateThread, qCountThreads, qDeleteThread,
		qTouchThread, qThreadMessages, qReadMessages, qInsertMessage, qMessageCreated, qReplaceMessage,
		qMessageDigests, qUnholdDigests, qHoldDigest, qThreadDigests, qBlobKnown, qInsertBlob, qReadBlob,
		qDropUnheldBlob, qBlobStats, qSavepoint, qRollbackTo, qRelease}
	for _, order := range threadOrders() {
		qs = append(qs, listThreadsQuery(order))
	}
	return qs
}

// prepare prepares every statement the store runs.
func prepare(ctx context.Context, db *sql.DB) (map[string]*sql.Stmt, error) {
	m := make(map[string]*sql.Stmt)
	for _, q := range statements() {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			closeAll(m)
			return nil, fmt.Errorf("preparing %q: %w", q, err)
		}
		m[q] = st
	}
	return m, nil
}

func closeAll(m map[string]*sql.Stmt) {
	for _, st := range m {
		st.Close()
	}
}

// errRow is the row of a statement that did not run: its Scan says why.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// conn runs the store's prepared statements on the database, or in a
// transaction, for a call with context ctx.
//
// The statements themselves run with ctx's values but not its end: the
// driver watches a context that can end with a goroutine per statement,
// which cost a short call more than its statements. ctx is checked before
// each statement instead. None of these statements waits for a lock
// (transactions take theirs when they begin, with ctx), so only a
// statement moving large files runs on after ctx ends, to its end.
type conn struct {
	ctx context.Context
	run context.Context // ctx without its end
	st  map[string]*sql.Stmt
	tx  *sql.Tx // nil: each statement on its own
}

func newConn(ctx context.Context, st map[string]*sql.Stmt, tx *sql.Tx) conn {
	return conn{ctx: ctx, run: context.WithoutCancel(ctx), st: st, tx: tx}
}

func (c conn) stmt(query string) (*sql.Stmt, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	st, ok := c.st[query]
	if !ok {
		// A statement missing from statements() is this package's bug.
		return nil, fmt.Errorf("sqlitestore: statement not prepared: %q", query)
	}
	if c.tx != nil {
		st = c.tx.StmtContext(c.run, st)
	}
	return st, nil
}

// queryRow runs a query of at most one row.
func (c conn) queryRow(query string, args ...any) interface{ Scan(...any) error } {
	st, err := c.stmt(query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(c.run, args...)
}

// query runs a query; the caller closes its rows.
func (c conn) query(query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(c.run, args...)
}

// exec runs a statement that returns no rows, and says how many rows it
// changed.
func (c conn) exec(query string, args ...any) (int64, error) {
	st, err := c.stmt(query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(c.run, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
