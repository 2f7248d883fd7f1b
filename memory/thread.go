package memory

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// CheckThread checks the fields of t a store keeps: a valid resource ID, a
// valid thread ID unless it is empty (a store then makes one), a UTF-8
// title without NUL bytes and metadata that encodes as JSON. The error wraps [ErrInvalid].
func CheckThread(t Thread) error {
	if err := CheckID("resource", t.ResourceID); err != nil {
		return err
	}
	if t.ID != "" {
		if err := CheckID("thread", t.ID); err != nil {
			return err
		}
	}
	if !utf8.ValidString(t.Title) {
		return fmt.Errorf("%w: thread %q title is not UTF-8", ErrInvalid, t.ID)
	}
	// PostgreSQL text cannot hold NUL, and a title has no use for it.
	if strings.IndexByte(t.Title, 0) >= 0 {
		return fmt.Errorf("%w: thread %q title holds a NUL byte", ErrInvalid, t.ID)
	}
	if _, err := EncodeMetadata(t.Metadata); err != nil {
		return fmt.Errorf("thread %q: %w", t.ID, err)
	}
	return nil
}

// NewThread checks t with [CheckThread] and returns it as
// [Store.CreateThread] stores it: an empty ID replaced by a [NewID], zero
// times set to now, times as [StoredTime].
func NewThread(t Thread, now time.Time) (Thread, error) {
	if err := CheckThread(t); err != nil {
		return Thread{}, err
	}
	if t.ID == "" {
		t.ID = NewID()
	}
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now
	}
	if t.UpdatedAt.IsZero() {
		t.UpdatedAt = now
	}
	t.CreatedAt, t.UpdatedAt = StoredTime(t.CreatedAt), StoredTime(t.UpdatedAt)
	return t, nil
}

// DefaultPerPage is the page size of [Store.ListThreads] when none is
// given.
const DefaultPerPage = 100

// Normalize returns o with its defaults filled in (PerPage 100, OrderBy
// "createdAt"), or an error wrapping [ErrInvalid] for a negative page or
// size or an unknown order.
func (o ListThreadsOptions) Normalize() (ListThreadsOptions, error) {
	if o.Page < 0 || o.PerPage < 0 {
		return o, fmt.Errorf("%w: page %d, per page %d", ErrInvalid, o.Page, o.PerPage)
	}
	if o.PerPage == 0 {
		o.PerPage = DefaultPerPage
	}
	switch o.OrderBy {
	case "":
		o.OrderBy = "createdAt"
	case "createdAt", "updatedAt":
	default:
		return o, fmt.Errorf("%w: order by %q; want createdAt or updatedAt", ErrInvalid, truncate(o.OrderBy))
	}
	return o, nil
}

// Check returns an error wrapping [ErrInvalid] for a negative page or
// size.
func (o ListMessagesOptions) Check() error {
	if o.Page < 0 || o.PerPage < 0 {
		return fmt.Errorf("%w: page %d, per page %d", ErrInvalid, o.Page, o.PerPage)
	}
	return nil
}

// Window returns the offset and count of items on page (zero-based) of
// perPage items among total, and whether items follow it. perPage 0 means
// every item on page 0, and none on later pages.
func Window(page, perPage, total int) (offset, count int, hasMore bool) {
	if perPage == 0 {
		if page > 0 {
			return total, 0, false
		}
		return 0, total, false
	}
	offset = page * perPage
	if offset >= total || offset < 0 {
		return total, 0, false
	}
	count = min(perPage, total-offset)
	return offset, count, offset+count < total
}
