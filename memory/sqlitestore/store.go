package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// BusyTimeout is how long a write waits for another process holding the
// file's write lock before it fails.
const BusyTimeout = 10 * time.Second

// Store is a [memory.Store] in one SQLite file, and a
// [memory.ThreadStarter], a [memory.BlobReporter], a
// [memory.RefusalLedger], a [memory.TurnQueue] and a
// [memory.ProviderFiles]. It is safe for concurrent use, and several
// processes may open the same file.
type Store struct {
	*sqlstore.Store
	f *file
}

var (
	_ memory.Store         = (*Store)(nil)
	_ memory.ThreadStarter = (*Store)(nil)
	_ memory.BlobReporter  = (*Store)(nil)
	_ memory.RefusalLedger = (*Store)(nil)
	_ memory.TurnQueue     = (*Store)(nil)
	_ memory.ProviderFiles = (*Store)(nil)
)

// file is the database as the store's body uses it (a [sqlstore.DB]).
type file struct {
	db *sql.DB
	st stmts
	// w queues this store's writers, where they can give up when their
	// context ends rather than spin on SQLite's busy handler, and commits
	// those that wait together.
	w    writer
	ckpt *checkpointer
}

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
	// Keep every connection open: opening one opens the file and runs the
	// setup pragmas, and its prepared statements and page cache go with
	// it. database/sql would otherwise keep only two idle and open and
	// close the rest under load.
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	if err := migrateWhenFree(context.Background(), db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	st, err := prepare(context.Background(), db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	f := &file{db: db, st: st, ckpt: startCheckpointer(db)}
	return &Store{Store: sqlstore.New(f, sqlstore.Config{Name: "sqlitestore"}), f: f}, nil
}

// maxConns bounds the store's connections. Readers in WAL mode run in
// parallel, and writers take turns on the write lock anyway, so a few
// connections serve any number of goroutines; more would only hold more
// page caches that every write makes stale.
const maxConns = 4

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

// isBusy reports SQLite's "database is locked" (SQLITE_BUSY) and "table
// is locked" (SQLITE_LOCKED), with their extended codes, read from the
// driver's error code.
func isBusy(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff { // the primary code, under the extended one
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// dsn returns the driver's name for the file at path: a file: URI (with
// the characters URIs reserve escaped) whose parameters set every
// connection up. IMMEDIATE transactions take the write lock when they
// begin, so two writers never both read and then fail to upgrade. The
// checkpointer, not SQLite's commits, copies the log into the file, and
// SQLite cuts the log's file back to logLimit when it starts it over.
func dsn(path string) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?_txlock=immediate" +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", BusyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)" +
		fmt.Sprintf("&_pragma=journal_size_limit(%d)", logLimit) +
		"&_pragma=wal_autocheckpoint(0)" // see checkpointer
}

// logLimit is the size the log's file is cut back to when SQLite starts
// the log over.
const logLimit = 16 << 20

// Close closes the database.
func (s *Store) Close() error {
	s.f.ckpt.close()
	s.f.st.close()
	if err := s.f.db.Close(); err != nil {
		return fmt.Errorf("sqlitestore: close: %w", err)
	}
	return nil
}

// Read implements [sqlstore.DB.Read] with a read-only transaction. It
// begins DEFERRED: readers take no write lock, and wait for none, so the
// transaction need not watch ctx (see conn).
func (f *file) Read(ctx context.Context, fn func(sqlstore.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	tx, err := f.db.BeginTx(context.WithoutCancel(ctx), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(newConn(ctx, f.st, tx)); err != nil {
		return err
	}
	return tx.Commit()
}

// Write implements [sqlstore.DB.Write] with the store's writer: an
// IMMEDIATE transaction, perhaps shared with other writes.
func (f *file) Write(ctx context.Context, fn func(sqlstore.Tx) error) error {
	return f.writeTx(ctx, func(c conn) error { return fn(c) })
}

// One implements [sqlstore.DB.One]: a single statement is atomic by
// itself.
func (f *file) One(ctx context.Context) sqlstore.Tx { return newConn(ctx, f.st, nil) }
