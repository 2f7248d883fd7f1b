package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/stored"
)

// CreateThread implements [memory.Store.CreateThread]: one INSERT that
// does nothing if the ID is taken.
func (s *Store) CreateThread(ctx context.Context, t memory.Thread) (memory.Thread, error) {
	t, meta, err := s.newThread(t)
	if err != nil {
		return memory.Thread{}, s.fail("create thread", err)
	}
	err = s.db.Write(ctx, func(tx Tx) error { return insertThread(tx, t, meta) })
	if err != nil {
		return memory.Thread{}, s.fail("create thread", err)
	}
	// Return decoded metadata, as a read would: no alias of the caller's map.
	t.Metadata, _ = stored.DecodeMetadata(meta)
	return t, nil
}

// newThread returns t as it is to be stored, and its metadata's JSON.
func (s *Store) newThread(t memory.Thread) (memory.Thread, []byte, error) {
	t, err := memory.NewThread(t, s.cfg.Now())
	if err != nil {
		return memory.Thread{}, nil, err
	}
	meta, err := stored.EncodeMetadata(t.Metadata) // NewThread checked it encodes
	return t, meta, err
}

func insertThread(tx Tx, t memory.Thread, meta []byte) error {
	n, err := tx.Exec(qInsertThread, t.ID, t.ResourceID, t.Title, string(meta), t.CreatedAt, t.UpdatedAt)
	if err == nil && n == 0 {
		return fmt.Errorf("%w: thread %q exists", memory.ErrConflict, t.ID)
	}
	return err
}

func scanThread(row Row) (memory.Thread, error) {
	var (
		t    memory.Thread
		meta string
	)
	if err := row.Scan(&t.ID, &t.ResourceID, &t.Title, &meta, &t.CreatedAt, &t.UpdatedAt, &t.MessageCount); err != nil {
		return memory.Thread{}, err
	}
	m, err := stored.DecodeMetadata([]byte(meta))
	if err != nil {
		return memory.Thread{}, fmt.Errorf("thread %q: %w", t.ID, err)
	}
	t.Metadata, t.CreatedAt, t.UpdatedAt = m, t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t, nil
}

// GetThread implements [memory.Store.GetThread].
func (s *Store) GetThread(ctx context.Context, resourceID, threadID string) (memory.Thread, error) {
	if err := ctx.Err(); err != nil {
		return memory.Thread{}, err
	}
	if err := CheckThreadIDs(resourceID, threadID); err != nil {
		return memory.Thread{}, s.fail("get thread", err)
	}
	t, err := scanThread(s.db.One(ctx).QueryRow(qGetThread, threadID, resourceID))
	if errors.Is(err, ErrNoRows) {
		err = ThreadNotFound(resourceID, threadID)
	}
	if err != nil {
		return memory.Thread{}, s.fail("get thread", err)
	}
	return t, nil
}

// ThreadOwner implements [memory.Store.ThreadOwner].
func (s *Store) ThreadOwner(ctx context.Context, threadID string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := memory.CheckID("thread", threadID); err != nil {
		return "", s.fail("thread owner", err)
	}
	owner, err := scanString(s.db.One(ctx).QueryRow(qThreadOwner, threadID))
	if errors.Is(err, ErrNoRows) {
		err = fmt.Errorf("%w: thread %q", memory.ErrNotFound, threadID)
	}
	if err != nil {
		return "", s.fail("thread owner", err)
	}
	return owner, nil
}

// ListThreads implements [memory.Store.ListThreads]: the count and the
// page in one read transaction.
func (s *Store) ListThreads(ctx context.Context, resourceID string, opts memory.ListThreadsOptions) (memory.ThreadPage, error) {
	opts, order, err := ThreadOrder(resourceID, opts)
	if err != nil {
		return memory.ThreadPage{}, s.fail("list threads", err)
	}
	page := memory.ThreadPage{Page: opts.Page, PerPage: opts.PerPage}
	err = s.db.Read(ctx, func(tx Tx) error {
		if err := tx.QueryRow(qCountThreads, resourceID).Scan(&page.Total); err != nil {
			return err
		}
		off, n, more := stored.Window(opts.Page, opts.PerPage, page.Total)
		page.HasMore, page.Threads = more, []memory.Thread{}
		if n == 0 {
			return nil
		}
		threads, err := scanAll(tx, listThreads(order), scanThread, resourceID, n, off)
		page.Threads = threads
		return err
	})
	if err != nil {
		return memory.ThreadPage{}, s.fail("list threads", err)
	}
	return page, nil
}

// UpdateThread implements [memory.Store.UpdateThread]: it sets the title
// and metadata of the thread t names (by ID and resource) and its
// UpdatedAt to now, in one UPDATE.
func (s *Store) UpdateThread(ctx context.Context, t memory.Thread) (memory.Thread, error) {
	if err := memory.CheckThread(t); err != nil {
		return memory.Thread{}, s.fail("update thread", err)
	}
	if err := memory.CheckID("thread", t.ID); err != nil {
		return memory.Thread{}, s.fail("update thread", err)
	}
	meta, _ := stored.EncodeMetadata(t.Metadata) // CheckThread checked it encodes
	var out memory.Thread
	err := s.db.Write(ctx, func(tx Tx) error {
		var err error
		out, err = scanThread(tx.QueryRow(qUpdateThread, t.Title, string(meta), stored.Time(s.cfg.Now()), t.ID, t.ResourceID))
		if errors.Is(err, ErrNoRows) {
			return ThreadNotFound(t.ResourceID, t.ID)
		}
		return err
	})
	if err != nil {
		return memory.Thread{}, s.fail("update thread", err)
	}
	return out, nil
}

// DeleteThread implements [memory.Store.DeleteThread]. The blobs only its
// messages held go with it.
func (s *Store) DeleteThread(ctx context.Context, resourceID, threadID string) error {
	if err := CheckThreadIDs(resourceID, threadID); err != nil {
		return s.fail("delete thread", err)
	}
	err := s.db.Write(ctx, func(tx Tx) error {
		if err := checkOwner(tx.QueryRow(s.lockThread(), threadID), resourceID, threadID); err != nil {
			return err
		}
		digests, err := scanAll(tx, qThreadDigests, scanString, threadID)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(qDeleteThread, threadID); err != nil {
			return err
		}
		if _, err := tx.Exec(qRemoveThreadTurns, threadID); err != nil {
			return err
		}
		return s.dropUnused(tx, digests)
	})
	return s.fail("delete thread", err)
}
