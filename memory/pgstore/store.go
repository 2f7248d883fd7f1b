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
// servers may share. It is safe for concurrent use.
type Store struct {
	pool  *pgxpool.Pool
	reads atomic.Int64
	now   func() time.Time
}

var (
	_ memory.Store        = (*Store)(nil)
	_ memory.BlobReporter = (*Store)(nil)
)

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
	return &Store{pool: pool, now: time.Now}, nil
}

// Close closes the connections.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// maxAttempts bounds the retries of a transaction PostgreSQL aborted for
// a conflict with another.
const maxAttempts = 5

// writeTx runs fn in a transaction, again when PostgreSQL aborts it for a
// deadlock or a serialization failure, or when a blob it counted on was
// deleted by a concurrent transaction (a foreign key violation, see
// keepBlobs). fn must be safe to run again.
func (s *Store) writeTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for attempt := range maxAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 5 * time.Millisecond):
			}
		}
		err = pgx.BeginFunc(ctx, s.pool, fn)
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

// readTx runs fn in a read-only REPEATABLE READ transaction, so that it
// sees one state of the database throughout.
func (s *Store) readTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}

// lockThread checks that the thread exists and belongs to resourceID, and
// locks it until the transaction ends, so that writers of one thread take
// turns and it cannot be deleted under them.
func lockThread(ctx context.Context, tx pgx.Tx, resourceID, threadID string) error {
	if err := sqlstore.CheckThreadIDs(resourceID, threadID); err != nil {
		return err
	}
	return sqlstore.CheckOwner(tx.QueryRow(ctx, `SELECT resource_id FROM keel_threads WHERE id = $1 FOR UPDATE`, threadID),
		pgx.ErrNoRows, resourceID, threadID)
}

// checkThread is lockThread for readers: it takes no lock.
func checkThread(ctx context.Context, tx pgx.Tx, resourceID, threadID string) error {
	if err := sqlstore.CheckThreadIDs(resourceID, threadID); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM keel_threads WHERE id = $1 AND resource_id = $2`, threadID, resourceID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return sqlstore.ThreadNotFound(resourceID, threadID)
	}
	return nil
}
