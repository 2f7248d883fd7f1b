package sqlstore

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/stored"
)

// SaveMessages implements [memory.Store.SaveMessages], in one transaction.
// A replaced message with a zero CreatedAt keeps its stored time, and so
// its place in the thread. Saving sets the thread's UpdatedAt to now.
func (s *Store) SaveMessages(ctx context.Context, resourceID, threadID string, msgs []keel.Message) ([]keel.Message, error) {
	if err := CheckThreadIDs(resourceID, threadID); err != nil {
		return nil, s.fail("save messages", err)
	}
	enc, blobs, err := stored.Encode(msgs)
	if err != nil {
		return nil, s.fail("save messages", err)
	}
	var saved []stored.Message
	err = s.db.Write(ctx, func(tx Tx) error {
		// Work on a copy, which saving completes: a write may run again.
		saved = slices.Clone(enc)
		now := stored.Time(s.cfg.Now())
		// Setting UpdatedAt first checks the owner, and locks the thread.
		n, err := tx.Exec(qTouchThread, now, threadID, resourceID)
		if err != nil {
			return err
		}
		if n == 0 {
			return ThreadNotFound(resourceID, threadID)
		}
		return s.save(tx, threadID, saved, blobs, now)
	})
	if err != nil {
		return nil, s.fail("save messages", err)
	}
	return stored.AsSaved(msgs, saved), nil
}

// StartThread implements [memory.ThreadStarter]: the thread's INSERT and
// its messages' share one transaction, and so one commit.
func (s *Store) StartThread(ctx context.Context, t memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	t, meta, err := s.newThread(t)
	if err != nil {
		return memory.Thread{}, nil, s.fail("start thread", err)
	}
	enc, blobs, err := stored.Encode(msgs)
	if err != nil {
		return memory.Thread{}, nil, s.fail("start thread", err)
	}
	var (
		saved []stored.Message
		out   memory.Thread
	)
	err = s.db.Write(ctx, func(tx Tx) error {
		// Fresh copies per attempt: saving fills in times.
		saved, out = slices.Clone(enc), t
		now := stored.Time(s.cfg.Now())
		out.UpdatedAt = now
		if err := insertThread(tx, out, meta); err != nil {
			return err
		}
		// Every message is new: the thread is, and one call names a
		// message once.
		out.MessageCount = len(saved)
		return s.save(tx, out.ID, saved, blobs, now)
	})
	if err != nil {
		return memory.Thread{}, nil, s.fail("start thread", err)
	}
	// Return decoded metadata, as a read would: no alias of the caller's map.
	out.Metadata, _ = stored.DecodeMetadata(meta)
	return out, stored.AsSaved(msgs, saved), nil
}

// save stores enc, whose files are blobs, in the thread, which the caller
// has checked and locked. The thread's row counts the new messages by
// itself: a trigger of the schema does, in each INSERT.
func (s *Store) save(tx Tx, threadID string, enc []stored.Message, blobs []stored.Blob, now time.Time) error {
	if err := putBlobs(tx, blobs); err != nil {
		return err
	}
	var released []string
	for i := range enc {
		old, err := saveMessage(tx, threadID, &enc[i], now)
		if err != nil {
			return err
		}
		released = append(released, old...)
	}
	return s.dropUnused(tx, released)
}

// saveMessage inserts e, or replaces the message with its ID, setting a
// zero CreatedAt. It returns the digests the replaced message held. A new
// message, the common case, costs one statement and one per file.
func saveMessage(tx Tx, threadID string, e *stored.Message, now time.Time) (old []string, err error) {
	keepTime := e.CreatedAt.IsZero()
	if keepTime {
		e.CreatedAt = now
	}
	n, err := tx.Exec(qInsertMessage, threadID, e.ID, string(e.Role), string(e.Parts), string(e.Metadata), e.CreatedAt)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if old, err = replaceMessage(tx, threadID, e, keepTime); err != nil {
			return nil, err
		}
	}
	for _, d := range e.Digests {
		if _, err := tx.Exec(qHoldDigest, threadID, e.ID, d); err != nil {
			return nil, err
		}
	}
	return old, nil
}

// replaceMessage replaces the stored message with e's ID, keeping its
// time if keepTime, and returns the digests it held.
func replaceMessage(tx Tx, threadID string, e *stored.Message, keepTime bool) ([]string, error) {
	if keepTime {
		if err := tx.QueryRow(qMessageCreated, threadID, e.ID).Scan(&e.CreatedAt); err != nil {
			return nil, err
		}
		e.CreatedAt = e.CreatedAt.UTC()
	}
	old, err := scanAll(tx, qMessageDigests, scanString, threadID, e.ID)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(qUnholdDigests, threadID, e.ID); err != nil {
		return nil, err
	}
	_, err = tx.Exec(qReplaceMessage, string(e.Role), string(e.Parts), string(e.Metadata), e.CreatedAt, threadID, e.ID)
	return old, err
}

// ListMessages implements [memory.Store.ListMessages]: the thread's owner
// and count from its row, then the page's rows, or the window's, then
// their files, each blob read once, in one read transaction.
func (s *Store) ListMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	if err := opts.Check(); err != nil {
		return memory.MessagePage{}, s.fail("list messages", err)
	}
	if err := CheckThreadIDs(resourceID, threadID); err != nil {
		return memory.MessagePage{}, s.fail("list messages", err)
	}
	page := memory.MessagePage{Page: opts.Page, PerPage: opts.PerPage}
	err := s.db.Read(ctx, func(tx Tx) error {
		var owner string
		err := tx.QueryRow(qThreadWindow, threadID).Scan(&owner, &page.Total)
		if errors.Is(err, ErrNoRows) || err == nil && owner != resourceID {
			return ThreadNotFound(resourceID, threadID)
		}
		if err != nil {
			return err
		}
		var enc []stored.Message
		if opts.Last > 0 {
			var n int
			_, n, page.HasMore = stored.Last(opts.Last, page.Total)
			if n > 0 {
				enc, err = scanAll(tx, qReadLast, scanMessage, threadID, n)
				slices.Reverse(enc)
			}
		} else {
			off, n, more := stored.Window(opts.Page, opts.PerPage, page.Total)
			page.HasMore = more
			if n > 0 {
				enc, err = scanAll(tx, qReadMessages, scanMessage, threadID, n, off)
			}
		}
		if err != nil {
			return err
		}
		// The rows are all read before the blobs: a connection runs one
		// query at a time.
		page.Messages = make([]keel.Message, 0, len(enc))
		blob := s.blobReader(tx)
		for _, e := range enc {
			m, err := stored.Decode(e, blob)
			if err != nil {
				return err
			}
			page.Messages = append(page.Messages, m)
		}
		return nil
	})
	if err != nil {
		return memory.MessagePage{}, s.fail("list messages", err)
	}
	return page, nil
}

func scanMessage(row Row) (stored.Message, error) {
	var (
		e           stored.Message
		role        string
		parts, meta []byte
	)
	if err := row.Scan(&e.ID, &role, &parts, &meta, &e.CreatedAt); err != nil {
		return stored.Message{}, err
	}
	e.Role, e.Parts, e.Metadata, e.CreatedAt = keel.Role(role), parts, meta, e.CreatedAt.UTC()
	return e, nil
}
