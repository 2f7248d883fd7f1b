package sqlstore

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/keel-go/keel/memory"
)

// Config says what differs between the SQL stores beyond their [DB].
type Config struct {
	// Name prefixes the store's errors ("sqlitestore", "pgstore").
	Name string
	// RowLocks says that the database takes row locks (SELECT ... FOR
	// UPDATE), as PostgreSQL does: transactions of one database run side
	// by side there, and lock the rows they change. SQLite runs one write
	// at a time and has none.
	RowLocks bool
	// Now is the store's clock; nil means time.Now.
	Now func() time.Time
}

// Store is the body of a SQL store: every method of [memory.Store],
// [memory.ThreadStarter], [memory.BlobReporter], [memory.RefusalLedger]
// and [memory.ProviderFiles], on a [DB]. It is safe for concurrent use as its
// DB is.
type Store struct {
	db    DB
	cfg   Config
	reads atomic.Int64 // blobs read, for BlobStats
}

// New returns the body of a store on db.
func New(db DB, cfg Config) *Store {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Store{db: db, cfg: cfg}
}

// fail prefixes err with the store's name and the operation, unless it is
// nil.
func (s *Store) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %s: %w", s.cfg.Name, op, err)
}

// CheckThreadIDs checks the IDs a call on one thread names, before any
// query: errors wrap [memory.ErrInvalid].
func CheckThreadIDs(resourceID, threadID string) error {
	if err := memory.CheckID("resource", resourceID); err != nil {
		return err
	}
	return memory.CheckID("thread", threadID)
}

// ThreadNotFound is the error for a thread that is missing or belongs to
// another resource: the two read alike, so that a store never tells one
// resource anything about another's threads. It wraps [memory.ErrNotFound].
func ThreadNotFound(resourceID, threadID string) error {
	return fmt.Errorf("%w: thread %q of resource %q", memory.ErrNotFound, threadID, resourceID)
}

// checkOwner scans a thread's resource_id from row and returns
// [ThreadNotFound] when there is no such row or the thread is another
// resource's.
func checkOwner(row Row, resourceID, threadID string) error {
	var owner string
	err := row.Scan(&owner)
	if errors.Is(err, ErrNoRows) || err == nil && owner != resourceID {
		return ThreadNotFound(resourceID, threadID)
	}
	return err
}

// ThreadOrder checks resourceID and opts for a list of threads, and
// returns opts normalized with the ORDER BY terms they ask for. The terms
// come from fixed strings, never from input, and end with the ID so that
// equal times keep one order.
func ThreadOrder(resourceID string, opts memory.ListThreadsOptions) (memory.ListThreadsOptions, string, error) {
	if err := memory.CheckID("resource", resourceID); err != nil {
		return opts, "", err
	}
	opts, err := opts.Normalize()
	if err != nil {
		return opts, "", err
	}
	col, dir := "created_at", "DESC"
	if opts.OrderBy == "updatedAt" {
		col = "updated_at"
	}
	if opts.Ascending {
		dir = "ASC"
	}
	return opts, col + " " + dir + ", id " + dir, nil
}

// scanAll runs query on tx and scans each row with scan.
func scanAll[T any](tx Tx, query string, scan func(Row) (T, error), args ...any) ([]T, error) {
	var out []T
	err := tx.Query(query, func(r Row) error {
		v, err := scan(r)
		if err == nil {
			out = append(out, v)
		}
		return err
	}, args...)
	return out, err
}

// scanString scans a row of one string column.
func scanString(r Row) (string, error) {
	var s string
	err := r.Scan(&s)
	return s, err
}
