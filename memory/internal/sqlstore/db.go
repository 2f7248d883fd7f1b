package sqlstore

import (
	"context"
	"errors"
)

// Row is one row of a query's result: pgx.Row and *sql.Row both are.
type Row interface {
	Scan(dest ...any) error
}

// ErrNoRows is what a [Row] of a query that found nothing returns from
// Scan: each [Tx] turns its driver's own error into it.
var ErrNoRows = errors.New("sqlstore: no rows")

// Tx runs the statements of one call of a store, on the call's context:
// in a transaction, or each on its own (see [DB.One]). The statements are
// those of this package, written with PostgreSQL's placeholders ($1),
// which SQLite reads too; times are given and scanned as time.Time, which
// a Tx converts to its database's form.
type Tx interface {
	// QueryRow runs a query of at most one row.
	QueryRow(query string, args ...any) Row
	// Query runs a query and calls each with every row of it, until each
	// returns an error. The rows are read as they come: each must not
	// run statements of its own.
	Query(query string, each func(Row) error, args ...any) error
	// Exec runs a statement that returns no rows, and says how many rows
	// it changed.
	Exec(query string, args ...any) (int64, error)
}

// DB is a store's database as the shared bodies use it.
type DB interface {
	// Read runs fn in a read-only transaction, which sees one state of
	// the database throughout.
	Read(ctx context.Context, fn func(Tx) error) error
	// Write runs fn in a transaction and commits it, all or nothing. A
	// DB may run fn again when its database aborted the transaction for
	// a conflict with another, so fn sets its results afresh each time.
	Write(ctx context.Context, fn func(Tx) error) error
	// One returns a Tx whose statements each run on their own, for a
	// call that reads one row.
	One(ctx context.Context) Tx
}
