package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// CreateThread implements [memory.Store.CreateThread].
func (s *Store) CreateThread(ctx context.Context, t memory.Thread) (memory.Thread, error) {
	t, err := memory.NewThread(t, s.now())
	if err != nil {
		return memory.Thread{}, fmt.Errorf("sqlitestore: create thread: %w", err)
	}
	meta, _ := memory.EncodeMetadata(t.Metadata) // NewThread checked it encodes
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM threads WHERE id = ?`, t.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%w: thread %q exists", memory.ErrConflict, t.ID)
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO threads (id, resource_id, title, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
			t.ID, t.ResourceID, t.Title, string(meta), millis(t.CreatedAt), millis(t.UpdatedAt))
		return err
	})
	if err != nil {
		return memory.Thread{}, fmt.Errorf("sqlitestore: create thread: %w", err)
	}
	// Return decoded metadata, as a read would: no alias of the caller's map.
	t.Metadata, _ = memory.DecodeMetadata(meta)
	return t, nil
}

const threadColumns = `id, resource_id, title, metadata, created_at, updated_at`

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
	t, err := s.getThread(ctx, s.db, resourceID, threadID)
	if err != nil {
		return memory.Thread{}, fmt.Errorf("sqlitestore: get thread: %w", err)
	}
	return t, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) getThread(ctx context.Context, q querier, resourceID, threadID string) (memory.Thread, error) {
	if err := sqlstore.CheckThreadIDs(resourceID, threadID); err != nil {
		return memory.Thread{}, err
	}
	t, err := scanThread(q.QueryRowContext(ctx,
		`SELECT `+threadColumns+` FROM threads WHERE id = ? AND resource_id = ?`, threadID, resourceID))
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

func (s *Store) listThreads(ctx context.Context, resourceID string, opts memory.ListThreadsOptions) (memory.ThreadPage, error) {
	opts, order, err := sqlstore.ThreadOrder(resourceID, opts)
	if err != nil {
		return memory.ThreadPage{}, err
	}
	var page memory.ThreadPage
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		page, err = sqlstore.ThreadPage(opts,
			tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM threads WHERE resource_id = ?`, resourceID),
			func(off, n int) ([]memory.Thread, error) {
				rows, err := tx.QueryContext(ctx, `SELECT `+threadColumns+` FROM threads WHERE resource_id = ?
					ORDER BY `+order+` LIMIT ? OFFSET ?`, resourceID, n, off)
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
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		if err := threadOwner(ctx, tx, t.ResourceID, t.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE threads SET title = ?, metadata = ?, updated_at = ? WHERE id = ?`,
			t.Title, string(meta), millis(s.now()), t.ID)
		if err != nil {
			return err
		}
		out, err = s.getThread(ctx, tx, t.ResourceID, t.ID)
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
	err := s.writeTx(ctx, func(tx *sql.Tx) error {
		if err := threadOwner(ctx, tx, resourceID, threadID); err != nil {
			return err
		}
		digests, err := threadDigests(ctx, tx, threadID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM threads WHERE id = ?`, threadID); err != nil {
			return err
		}
		return dropUnused(ctx, tx, digests)
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: delete thread: %w", err)
	}
	return nil
}
