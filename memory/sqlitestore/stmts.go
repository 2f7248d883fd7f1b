package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// stmts holds the store's prepared statements, by their text, each
// prepared when the store opens and kept for its life: SQLite compiles a
// statement in about the time it takes to run a small one, so compiling
// each call's statements afresh would double its cost. database/sql then
// prepares a statement on each pooled connection the first time that
// connection runs it, and a transaction reuses its connection's.
type stmts map[string]*sql.Stmt

// prepare prepares every statement the store runs: its body's and its
// writer's.
func prepare(ctx context.Context, db *sql.DB) (stmts, error) {
	m := make(stmts)
	for _, q := range append(sqlstore.Statements(), qSavepoint, qRollbackTo, qRelease) {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			m.close()
			return nil, fmt.Errorf("preparing %q: %w", q, err)
		}
		m[q] = st
	}
	return m, nil
}

func (m stmts) close() {
	for _, st := range m {
		st.Close()
	}
}

// conn runs the store's statements on the database, or in a transaction,
// for a call with context ctx: it is the store's [sqlstore.Tx]. The file
// keeps times as Unix milliseconds, which conn converts from and to
// time.Time.
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
	st  stmts
	tx  *sql.Tx // nil: each statement on its own
}

func newConn(ctx context.Context, st stmts, tx *sql.Tx) conn {
	return conn{ctx: ctx, run: context.WithoutCancel(ctx), st: st, tx: tx}
}

func (c conn) stmt(query string) (*sql.Stmt, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	st, ok := c.st[query]
	if !ok {
		// A statement missing from sqlstore.Statements is a bug of this module.
		return nil, fmt.Errorf("sqlitestore: statement not prepared: %q", query)
	}
	if c.tx != nil {
		st = c.tx.StmtContext(c.run, st)
	}
	return st, nil
}

// QueryRow implements [sqlstore.Tx.QueryRow].
func (c conn) QueryRow(query string, args ...any) sqlstore.Row {
	st, err := c.stmt(query)
	if err != nil {
		return errRow{err}
	}
	return row{st.QueryRowContext(c.run, toFile(args)...)}
}

// Query implements [sqlstore.Tx.Query].
func (c conn) Query(query string, each func(sqlstore.Row) error, args ...any) error {
	st, err := c.stmt(query)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(c.run, toFile(args)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(row{rows}); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Exec implements [sqlstore.Tx.Exec].
func (c conn) Exec(query string, args ...any) (int64, error) {
	st, err := c.stmt(query)
	if err != nil {
		return 0, err
	}
	res, err := st.ExecContext(c.run, toFile(args)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// toFile returns args with each time as the file keeps it, in a copy:
// the caller's slice stays as it was.
func toFile(args []any) []any {
	copied := false
	for i, a := range args {
		if t, ok := a.(time.Time); ok {
			if !copied {
				args, copied = append([]any(nil), args...), true
			}
			args[i] = t.UnixMilli()
		}
	}
	return args
}

// row is a row of the database/sql driver, read as the store's body
// expects: times from milliseconds, no row as [sqlstore.ErrNoRows].
type row struct {
	r interface{ Scan(...any) error }
}

func (r row) Scan(dest ...any) error {
	type timeDest struct {
		t  *time.Time
		ms int64
	}
	var times []*timeDest
	for i, d := range dest {
		if t, ok := d.(*time.Time); ok {
			if times == nil {
				dest = append([]any(nil), dest...)
			}
			td := &timeDest{t: t}
			times = append(times, td)
			dest[i] = &td.ms
		}
	}
	err := r.r.Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return sqlstore.ErrNoRows
	}
	for _, td := range times {
		*td.t = time.UnixMilli(td.ms).UTC()
	}
	return err
}

// errRow is the row of a statement that did not run: its Scan says why.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
