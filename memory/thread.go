package memory

import (
	"cmp"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/keel-go/keel/memory/internal/stored"
)

// CheckThread checks the fields of t a store keeps: a valid resource ID, a
// valid thread ID unless it is empty (a store then makes one), a UTF-8
// title without NUL bytes and metadata that encodes as JSON. The error
// wraps [ErrInvalid]. The stores of this module call it; a store of
// another package applies the same rules with it.
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
	if _, err := stored.EncodeMetadata(t.Metadata); err != nil {
		return fmt.Errorf("thread %q: %w", t.ID, err)
	}
	return nil
}

// NewThread checks t with [CheckThread] and returns it as
// [Store.CreateThread] stores it: an empty ID replaced by a [NewID], zero
// times set to now, times in UTC to the millisecond, no messages.
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
	t.CreatedAt, t.UpdatedAt = stored.Time(t.CreatedAt), stored.Time(t.UpdatedAt)
	t.MessageCount = 0
	return t, nil
}

// defaultPerPage is the page size of [Store.ListThreads] when none is
// given.
const defaultPerPage = 100

// Normalize returns o with its defaults filled in (PerPage 100, OrderBy
// "createdAt"), or an error wrapping [ErrInvalid] for a negative page or
// size or an unknown order. Stores call it before listing.
func (o ListThreadsOptions) Normalize() (ListThreadsOptions, error) {
	if o.Page < 0 || o.PerPage < 0 {
		return o, fmt.Errorf("%w: page %d, per page %d", ErrInvalid, o.Page, o.PerPage)
	}
	o.PerPage = cmp.Or(o.PerPage, defaultPerPage)
	switch o.OrderBy {
	case "":
		o.OrderBy = "createdAt"
	case "createdAt", "updatedAt":
	default:
		return o, fmt.Errorf("%w: order by %q; want createdAt or updatedAt", ErrInvalid, stored.Truncate(o.OrderBy))
	}
	return o, nil
}

// Check returns an error wrapping [ErrInvalid] for a negative page, size
// or window, or a window (Last) asked for with a page. Stores call it
// before listing.
func (o ListMessagesOptions) Check() error {
	switch {
	case o.Page < 0 || o.PerPage < 0 || o.Last < 0:
		return fmt.Errorf("%w: page %d, per page %d, last %d", ErrInvalid, o.Page, o.PerPage, o.Last)
	case o.Last > 0 && (o.Page != 0 || o.PerPage != 0):
		return fmt.Errorf("%w: last %d messages asked for with page %d of %d: give one or the other", ErrInvalid, o.Last, o.Page, o.PerPage)
	}
	return nil
}
