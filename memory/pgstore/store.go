package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// Store is a [memory.Store] in a PostgreSQL database, which several keel
// servers may share, and a [memory.ThreadStarter], a [memory.BlobReporter],
// a [memory.RefusalLedger] and a [memory.TurnQueue]; and, for the
// servers that share it, a [memory.ThreadLocker] and a [memory.EventBus].
// It is safe for concurrent use.
type Store struct {
	*sqlstore.Store
	db     *database
	locks  lockSessions
	stored atomic.Int64 // events stored for their size, for pruning
}

var (
	_ memory.Store         = (*Store)(nil)
	_ memory.ThreadStarter = (*Store)(nil)
	_ memory.BlobReporter  = (*Store)(nil)
	_ memory.RefusalLedger = (*Store)(nil)
	_ memory.TurnQueue     = (*Store)(nil)
	_ memory.ThreadLocker  = (*Store)(nil)
	_ memory.EventBus      = (*Store)(nil)
)

// database is the pool as the store's body uses it (a [sqlstore.DB]),
// and its configuration, for the connections of locks and of listening.
type database struct {
	pool   *pgxpool.Pool
	config *pgxpool.Config
}

// Open connects to the database at url (a postgres:// URL or a key=value
// string, as pgx takes them) and brings its schema up to date. Servers
// opening one database at once migrate it once: they take turns on an
// advisory lock.
func Open(ctx context.Context, url string) (*Store, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	db := &database{pool: pool, config: pool.Config()}
	s := &Store{Store: sqlstore.New(db, sqlstore.Config{Name: "pgstore", RowLocks: true}), db: db}
	s.locks.config = db.config
	return s, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	s.locks.close()
	s.db.pool.Close()
	return nil
}

// maxAttempts bounds the retries of a transaction PostgreSQL aborted for
// a conflict with another.
const maxAttempts = 5

// Write implements [sqlstore.DB.Write]: a transaction, run again when
// PostgreSQL aborts it for a deadlock or a serialization failure, or when
// a blob it counted on was deleted by a concurrent transaction (a foreign
// key violation).
func (d *database) Write(ctx context.Context, fn func(sqlstore.Tx) error) error {
	var err error
	for attempt := range maxAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 5 * time.Millisecond):
			}
		}
		err = pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error { return fn(conn{ctx, tx}) })
		if !retryable(err) {
			return err
		}
	}
	return err
}

func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "40001", "40P01", "23503": // serialization failure, deadlock, foreign key violation
		return true
	}
	return false
}

// Read implements [sqlstore.DB.Read] with a read-only REPEATABLE READ
// transaction, which sees one state of the database throughout.
func (d *database) Read(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return pgx.BeginTxFunc(ctx, d.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return fn(conn{ctx, tx}) })
}

// One implements [sqlstore.DB.One]: statements on the pool, each its own
// transaction.
func (d *database) One(ctx context.Context) sqlstore.Tx { return conn{ctx, d.pool} }

// querier is what pgx's pool and transactions both do.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, arguments ...any) (pgconn.CommandTag, error)
}

// conn runs the statements of a call with context ctx: it is the store's
// [sqlstore.Tx].
type conn struct {
	ctx context.Context
	q   querier
}

// QueryRow implements [sqlstore.Tx.QueryRow].
func (c conn) QueryRow(query string, args ...any) sqlstore.Row {
	return row{c.q.QueryRow(c.ctx, query, args...)}
}

// Query implements [sqlstore.Tx.Query].
func (c conn) Query(query string, each func(sqlstore.Row) error, args ...any) error {
	rows, err := c.q.Query(c.ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Exec implements [sqlstore.Tx.Exec].
func (c conn) Exec(query string, args ...any) (int64, error) {
	tag, err := c.q.Exec(c.ctx, query, args...)
	return tag.RowsAffected(), err
}

// row reads no row as [sqlstore.ErrNoRows].
type row struct{ r pgx.Row }

func (r row) Scan(dest ...any) error {
	err := r.r.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return sqlstore.ErrNoRows
	}
	return err
}
