package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// BusyTimeout is how long a write waits for another process holding the
// file's write lock before it fails.
const BusyTimeout = 10 * time.Second

// Store is a [memory.Store] in one SQLite file. It is safe for concurrent
// use, and several processes may open the same file.
type Store struct {
	db *sql.DB
	// write holds a token while this store writes: its writers queue here,
	// where they can give up when their context ends, rather than spin on
	// SQLite's busy handler. Other processes are held off by SQLite's lock.
	write chan struct{}
	reads atomic.Int64
	now   func() time.Time
}

var (
	_ memory.Store        = (*Store)(nil)
	_ memory.BlobReporter = (*Store)(nil)
)

// Open opens the store in the SQLite file at path, creating the file and
// bringing its schema up to date as needed. The file is in WAL mode, so
// readers never wait for a writer.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("sqlitestore: open: %w: empty path", memory.ErrInvalid)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	if err := migrateWhenFree(context.Background(), db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	return &Store{db: db, write: make(chan struct{}, 1), now: time.Now}, nil
}

// migrateWhenFree migrates, trying again while another process holds the
// file. Switching a new file to WAL and recovering one another process
// left can answer SQLITE_BUSY at once, without waiting for the busy
// timeout, so several processes opening a new file together need this.
func migrateWhenFree(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(BusyTimeout)
	for {
		err := migrate(ctx, db)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// isBusy reports SQLite's "database is locked" (SQLITE_BUSY and its
// extended codes), which the driver reports only in its message.
func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// dsn returns the driver's name for the file at path: a file: URI (with
// the characters URIs reserve escaped) whose parameters set every
// connection up. IMMEDIATE transactions take the write lock when they
// begin, so two writers never both read and then fail to upgrade.
func dsn(path string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?_txlock=immediate" +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", BusyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
}

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("sqlitestore: close: %w", err)
	}
	return nil
}

// writeTx runs fn in an IMMEDIATE transaction, committing if it returns
// nil.
func (s *Store) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	select {
	case s.write <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.write }()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// readTx runs fn in a read-only transaction, so that it sees one state of
// the file throughout.
func (s *Store) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// threadOwner checks that the thread exists and belongs to resourceID.
func threadOwner(ctx context.Context, tx *sql.Tx, resourceID, threadID string) error {
	if err := sqlstore.CheckThreadIDs(resourceID, threadID); err != nil {
		return err
	}
	return sqlstore.CheckOwner(tx.QueryRowContext(ctx, `SELECT resource_id FROM threads WHERE id = ?`, threadID),
		sql.ErrNoRows, resourceID, threadID)
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
