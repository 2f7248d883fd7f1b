package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// CreateThread implements [memory.Store.CreateThread]: one INSERT that
// does nothing if the ID is taken.
func (s *Store) CreateThread(ctx context.Context, t memory.Thread) (memory.Thread, error) {
	t, err := memory.NewThread(t, s.now())
	if err != nil {
		return memory.Thread{}, fmt.Errorf("sqlitestore: create thread: %w", err)
	}
	meta, _ := memory.EncodeMetadata(t.Metadata) // NewThread checked it encodes
	err = s.writeTx(ctx, func(c conn) error {
		n, err := c.exec(qInsertThread,
			t.ID, t.ResourceID, t.Title, string(meta), millis(t.CreatedAt), millis(t.UpdatedAt))
		if err == nil && n == 0 {
			return fmt.Errorf("%w: thread %q exists", memory.ErrConflict, t.ID)
		}
		return err
	})
	if err != nil {
		return memory.Thread{}, fmt.Errorf("sqlitestore: create thread: %w", err)
	}
	// Return decoded metadata, as a read would: no alias of the caller's map.
	t.Metadata, _ = memory.DecodeMetadata(meta)
	return t, nil
}

func scanThread(row sqlstore.Row) (memory.Thread, error) {
	var (
		t            memory.Thread
		meta         string
		created, upd int64
	)
	if err := row.Scan(&t.ID, &t.ResourceID, &t.Title, &meta, &created, &upd); err != nil {
		return memory.Thread{}, err
	}
	m, err := memory.DecodeMetadata([]byte(meta))
	if err != nil {
		return memory.Thread{}, fmt.Errorf("thread %q: %w", t.ID, err)
	}
	t.Metadata, t.CreatedAt, t.UpdatedAt = m, fromMillis(created), fromMillis(upd)
	return t, nil
}

// GetThread implements [memory.Store.GetThread].
func (s *Store) GetThread(ctx context.Context, resourceID, threadID string) (memory.Thread, error) {
	t, err := getThread(s.one(ctx), resourceID, threadID)
	if err != nil {
		return memory.Thread{}, fmt.Errorf("sqlitestore: get thread: %w", err)
	}
	return t, nil
}

// ThreadOwner implements [memory.ThreadOwnerFinder].
func (s *Store) ThreadOwner(ctx context.Context, threadID string) (string, error) {
	if err := memory.CheckID("thread", threadID); err != nil {
		return "", fmt.Errorf("sqlitestore: thread owner: %w", err)
	}
	var owner string
	err := s.one(ctx).queryRow(qThreadOwner, threadID).Scan(&owner)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("sqlitestore: thread owner: %w: thread %q", memory.ErrNotFound, threadID)
	}
	if err != nil {
		return "", fmt.Errorf("sqlitestore: thread owner: %w", err)
	}
	return owner, nil
}

func getThread(c conn, resourceID, threadID string) (memory.Thread, error) {
	if err := sqlstore.CheckThreadIDs(resourceID, threadID); err != nil {
		return memory.Thread{}, err
	}
	t, err := scanThread(c.queryRow(qGetThread, threadID, resourceID))
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Thread{}, sqlstore.ThreadNotFound(resourceID, threadID)
	}
	return t, err
}

// ListThreads implements [memory.Store.ListThreads].
func (s *Store) ListThreads(ctx context.Context, resourceID string, opts memory.ListThreadsOptions) (memory.ThreadPage, error) {
	page, err := s.listThreads(ctx, resourceID, opts)
	if err != nil {
		return memory.ThreadPage{}, fmt.Errorf("sqlitestore: list threads: %w", err)
	}
	return page, nil
}

// threadOrders returns the ORDER BY terms of each order a list of
// threads may ask for, so that each list's statement is prepared.
func threadOrders() []string {
	var out []string
	for _, by := range []string{"createdAt", "updatedAt"} {
		for _, asc := range []bool{false, true} {
			_, order, err := sqlstore.ThreadOrder("r", memory.ListThreadsOptions{OrderBy: by, Ascending: asc})
			if err != nil {
				panic("sqlitestore: thread order " + by + ": " + err.Error())
			}
			out = append(out, order)
		}
	}
	return out
}

func listThreadsQuery(order string) string {
	return `SELECT ` + threadColumns + ` FROM threads WHERE resource_id = ? ORDER BY ` + order + ` LIMIT ? OFFSET ?`
}

func (s *Store) listThreads(ctx context.Context, resourceID string, opts memory.ListThreadsOptions) (memory.ThreadPage, error) {
	opts, order, err := sqlstore.ThreadOrder(resourceID, opts)
	if err != nil {
		return memory.ThreadPage{}, err
	}
	var page memory.ThreadPage
	err = s.readTx(ctx, func(c conn) error {
		var err error
		page, err = sqlstore.ThreadPage(opts, c.queryRow(qCountThreads, resourceID),
			func(off, n int) ([]memory.Thread, error) {
				rows, err := c.query(listThreadsQuery(order), resourceID, n, off)
				if err != nil {
					return nil, err
				}
				defer rows.Close()
				return sqlstore.ScanAll(rows, scanThread)
			})
		return err
	})
	return page, err
}

// UpdateThread implements [memory.Store.UpdateThread]: it sets the title
// and metadata of the thread t names (by ID and resource) and its
// UpdatedAt to now.
func (s *Store) UpdateThread(ctx context.Context, t memory.Thread) (memory.Thread, error) {
	if err := memory.CheckThread(t); err != nil {
		return memory.Thread{}, fmt.Errorf("sqlitestore: update thread: %w", err)
	}
	meta, _ := memory.EncodeMetadata(t.Metadata) // CheckThread checked it encodes
	var out memory.Thread
	err := s.writeTx(ctx, func(c conn) error {
		if err := threadOwner(c, t.ResourceID, t.ID); err != nil {
			return err
		}
		if _, err := c.exec(qUpdateThread, t.Title, string(meta), millis(s.now()), t.ID); err != nil {
			return err
		}
		var err error
		out, err = getThread(c, t.ResourceID, t.ID)
		return err
	})
	if err != nil {
		return memory.Thread{}, fmt.Errorf("sqlitestore: update thread: %w", err)
	}
	return out, nil
}

// DeleteThread implements [memory.Store.DeleteThread]. The blobs only its
// messages held go with it.
func (s *Store) DeleteThread(ctx context.Context, resourceID, threadID string) error {
	err := s.writeTx(ctx, func(c conn) error {
		if err := threadOwner(c, resourceID, threadID); err != nil {
			return err
		}
		digests, err := queryStrings(c, qThreadDigests, threadID)
		if err != nil {
			return err
		}
		if _, err := c.exec(qDeleteThread, threadID); err != nil {
			return err
		}
		return dropUnused(c, digests)
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: delete thread: %w", err)
	}
	return nil
}
