package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// SaveMessages implements [memory.Store.SaveMessages], in one transaction.
// A replaced message with a zero CreatedAt keeps its stored time, and so
// its place in the thread. Saving sets the thread's UpdatedAt to now.
func (s *Store) SaveMessages(ctx context.Context, resourceID, threadID string, msgs []keel.Message) ([]keel.Message, error) {
	if err := sqlstore.CheckThreadIDs(resourceID, threadID); err != nil {
		return nil, fmt.Errorf("sqlitestore: save messages: %w", err)
	}
	enc, blobs, err := memory.EncodeMessages(msgs)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: save messages: %w", err)
	}
	var stored []memory.EncodedMessage
	err = s.writeTx(ctx, func(c conn) error {
		// Work on a copy, which saving completes: a write may run again.
		stored = slices.Clone(enc)
		enc := stored
		now := memory.StoredTime(s.now())
		// Setting UpdatedAt first checks the owner in the same step.
		n, err := c.exec(qTouchThread, millis(now), threadID, resourceID)
		if err != nil {
			return err
		}
		if n == 0 {
			return sqlstore.ThreadNotFound(resourceID, threadID)
		}
		if err := putBlobs(c, blobs); err != nil {
			return err
		}
		var released []string
		for i := range enc {
			old, err := saveMessage(c, threadID, &enc[i], now)
			if err != nil {
				return err
			}
			released = append(released, old...)
		}
		return dropUnused(c, released)
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: save messages: %w", err)
	}
	return memory.Stored(msgs, stored), nil
}

// saveMessage inserts e, or replaces the message with its ID, setting a
// zero CreatedAt. It returns the digests the replaced message held. A new
// message, the common case, costs one statement and one per file.
func saveMessage(c conn, threadID string, e *memory.EncodedMessage, now time.Time) ([]string, error) {
	keepTime := e.CreatedAt.IsZero()
	if keepTime {
		e.CreatedAt = now
	}
	n, err := c.exec(qInsertMessage,
		threadID, e.ID, threadID, string(e.Role), string(e.Parts), string(e.Metadata), millis(e.CreatedAt))
	if err != nil {
		return nil, err
	}
	var old []string
	if n == 0 {
		if old, err = replaceMessage(c, threadID, e, keepTime); err != nil {
			return nil, err
		}
	}
	for _, d := range e.Digests {
		if _, err := c.exec(qHoldDigest, threadID, e.ID, d); err != nil {
			return nil, err
		}
	}
	return old, nil
}

// replaceMessage replaces the stored message with e's ID, keeping its
// time if keepTime, and returns the digests it held.
func replaceMessage(c conn, threadID string, e *memory.EncodedMessage, keepTime bool) ([]string, error) {
	if keepTime {
		var created int64
		if err := c.queryRow(qMessageCreated, threadID, e.ID).Scan(&created); err != nil {
			return nil, err
		}
		e.CreatedAt = fromMillis(created)
	}
	old, err := queryStrings(c, qMessageDigests, threadID, e.ID)
	if err != nil {
		return nil, err
	}
	if _, err := c.exec(qUnholdDigests, threadID, e.ID); err != nil {
		return nil, err
	}
	_, err = c.exec(qReplaceMessage,
		string(e.Role), string(e.Parts), string(e.Metadata), millis(e.CreatedAt), threadID, e.ID)
	return old, err
}

// ListMessages implements [memory.Store.ListMessages]. Each blob the page
// needs is read once, and shared by the parts that hold it.
func (s *Store) ListMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	page, err := s.listMessages(ctx, resourceID, threadID, opts)
	if err != nil {
		return memory.MessagePage{}, fmt.Errorf("sqlitestore: list messages: %w", err)
	}
	return page, nil
}

func (s *Store) listMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	if err := opts.Check(); err != nil {
		return memory.MessagePage{}, err
	}
	if err := sqlstore.CheckThreadIDs(resourceID, threadID); err != nil {
		return memory.MessagePage{}, err
	}
	var page memory.MessagePage
	err := s.readTx(ctx, func(c conn) error {
		var (
			owner string
			total int
		)
		err := c.queryRow(qThreadMessages, threadID).Scan(&owner, &total)
		if errors.Is(err, sql.ErrNoRows) || err == nil && owner != resourceID {
			return sqlstore.ThreadNotFound(resourceID, threadID)
		}
		if err != nil {
			return err
		}
		page, err = sqlstore.MessagePage(opts, countRow(total),
			func(off, n int) ([]memory.EncodedMessage, error) { return readMessages(c, threadID, off, n) },
			s.blobReader(c))
		return err
	})
	return page, err
}

// countRow is a count already read, as a row.
type countRow int

func (n countRow) Scan(dest ...any) error {
	*dest[0].(*int) = int(n)
	return nil
}

// readMessages reads the rows first, so that no result set is open while
// blobs are read.
func readMessages(c conn, threadID string, off, n int) ([]memory.EncodedMessage, error) {
	rows, err := c.query(qReadMessages, threadID, n, off)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlstore.ScanAll(rows, scanMessage)
}

func scanMessage(row sqlstore.Row) (memory.EncodedMessage, error) {
	var (
		e           memory.EncodedMessage
		role        string
		parts, meta []byte
		created     int64
	)
	if err := row.Scan(&e.ID, &role, &parts, &meta, &created); err != nil {
		return memory.EncodedMessage{}, err
	}
	e.Role, e.Parts, e.Metadata, e.CreatedAt = keel.Role(role), parts, meta, fromMillis(created)
	return e, nil
}
