package sqlstore

import (
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

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

// CheckOwner scans a thread's resource_id from row and returns
// [ThreadNotFound] when there is no such row (row's Scan fails with an
// error matching noRows, the driver's own) or the thread is another
// resource's.
func CheckOwner(row Row, noRows error, resourceID, threadID string) error {
	var owner string
	err := row.Scan(&owner)
	if errors.Is(err, noRows) || err == nil && owner != resourceID {
		return ThreadNotFound(resourceID, threadID)
	}
	return err
}

// ReadPage reads one page of a list: it scans the number of rows from
// count, then, unless the page starts past them, reads its window with
// read. count is scanned first, so its result set is closed before read
// runs its query on the same connection.
func ReadPage[T any](page, perPage int, count Row, read func(offset, n int) ([]T, error)) (items []T, total int, hasMore bool, err error) {
	if err := count.Scan(&total); err != nil {
		return nil, 0, false, err
	}
	off, n, more := memory.Window(page, perPage, total)
	if n == 0 {
		return nil, total, more, nil
	}
	items, err = read(off, n)
	if err != nil {
		return nil, 0, false, err
	}
	return items, total, more, nil
}

// MessagePage reads the page opts ask for of a thread's messages: the
// count of them all from count, the page's rows with read, their files
// with blob. The thread must have been checked, and opts too.
func MessagePage(opts memory.ListMessagesOptions, count Row, read func(offset, n int) ([]memory.EncodedMessage, error), blob func(digest string) ([]byte, error)) (memory.MessagePage, error) {
	enc, total, more, err := ReadPage(opts.Page, opts.PerPage, count, read)
	if err != nil {
		return memory.MessagePage{}, err
	}
	msgs, err := DecodeMessages(enc, blob)
	if err != nil {
		return memory.MessagePage{}, err
	}
	return memory.MessagePage{Messages: msgs, Total: total, Page: opts.Page, PerPage: opts.PerPage, HasMore: more}, nil
}

// ThreadPage reads the page opts ask for of a resource's threads: the
// count of them all from count, the page's threads with read. opts must
// have been normalized (see [ThreadOrder]).
func ThreadPage(opts memory.ListThreadsOptions, count Row, read func(offset, n int) ([]memory.Thread, error)) (memory.ThreadPage, error) {
	threads, total, more, err := ReadPage(opts.Page, opts.PerPage, count, read)
	if err != nil {
		return memory.ThreadPage{}, err
	}
	if threads == nil {
		threads = []memory.Thread{} // an empty page lists no threads, rather than none at all
	}
	return memory.ThreadPage{Threads: threads, Total: total, Page: opts.Page, PerPage: opts.PerPage, HasMore: more}, nil
}

// DecodeMessages decodes a page of stored messages, reading their files
// with blob. The result is never nil: an empty page lists no messages,
// rather than none at all.
func DecodeMessages(enc []memory.EncodedMessage, blob func(digest string) ([]byte, error)) ([]keel.Message, error) {
	out := make([]keel.Message, 0, len(enc))
	for _, e := range enc {
		m, err := memory.DecodeMessage(e, blob)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ThreadOrder checks resourceID and opts for a list of threads, and
// returns opts normalized with the ORDER BY terms they ask for. Both
// stores name the columns alike; the terms come from fixed strings, never
// from input, and end with the ID so that equal times keep one order.
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

// Rows is a result set being read: pgx.Rows and *sql.Rows both are. Its
// closing stays with the caller, as the two close differently.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanAll scans each row of rows with scan, and returns them all, or the
// first error of a scan or of the result set.
func ScanAll[T any](rows Rows, scan func(Row) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
