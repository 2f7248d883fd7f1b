package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// CreateThread implements [memory.Store.CreateThread].
func (s *Store) CreateThread(ctx context.Context, t memory.Thread) (memory.Thread, error) {
	t, err := memory.NewThread(t, s.now())
	if err != nil {
		return memory.Thread{}, fmt.Errorf("pgstore: create thread: %w", err)
	}
	meta, _ := memory.EncodeMetadata(t.Metadata) // NewThread checked it encodes
	tag, err := s.pool.Exec(ctx, `INSERT INTO keel_threads (id, resource_id, title, metadata, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
		t.ID, t.ResourceID, t.Title, string(meta), t.CreatedAt, t.UpdatedAt)
	if err != nil {
		return memory.Thread{}, fmt.Errorf("pgstore: create thread: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return memory.Thread{}, fmt.Errorf("pgstore: create thread: %w: thread %q exists", memory.ErrConflict, t.ID)
	}
	// Return decoded metadata, as a read would: no alias of the caller's map.
	t.Metadata, _ = memory.DecodeMetadata(meta)
	return t, nil
}

const threadColumns = `id, resource_id, title, metadata, created_at, updated_at`

func scanThread(row sqlstore.Row) (memory.Thread, error) {
	var (
		t    memory.Thread
		meta string
	)
	if err := row.Scan(&t.ID, &t.ResourceID, &t.Title, &meta, &t.CreatedAt, &t.UpdatedAt); err != nil {
		return memory.Thread{}, err
	}
	m, err := memory.DecodeMetadata([]byte(meta))
	if err != nil {
		return memory.Thread{}, fmt.Errorf("thread %q: %w", t.ID, err)
	}
	t.Metadata, t.CreatedAt, t.UpdatedAt = m, t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t, nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// GetThread implements [memory.Store.GetThread].
func (s *Store) GetThread(ctx context.Context, resourceID, threadID string) (memory.Thread, error) {
	t, err := getThread(ctx, s.pool, resourceID, threadID)
	if err != nil {
		return memory.Thread{}, fmt.Errorf("pgstore: get thread: %w", err)
	}
	return t, nil
}

// ThreadOwner implements [memory.ThreadOwnerFinder].
func (s *Store) ThreadOwner(ctx context.Context, threadID string) (string, error) {
	if err := memory.CheckID("thread", threadID); err != nil {
		return "", fmt.Errorf("pgstore: thread owner: %w", err)
	}
	var owner string
	err := s.pool.QueryRow(ctx, `SELECT resource_id FROM keel_threads WHERE id = $1`, threadID).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("pgstore: thread owner: %w: thread %q", memory.ErrNotFound, threadID)
	}
	if err != nil {
		return "", fmt.Errorf("pgstore: thread owner: %w", err)
	}
	return owner, nil
}

func getThread(ctx context.Context, q querier, resourceID, threadID string) (memory.Thread, error) {
	if err := sqlstore.CheckThreadIDs(resourceID, threadID); err != nil {
		return memory.Thread{}, err
	}
	t, err := scanThread(q.QueryRow(ctx,
		`SELECT `+threadColumns+` FROM keel_threads WHERE id = $1 AND resource_id = $2`, threadID, resourceID))
	if errors.Is(err, pgx.ErrNoRows) {
		return memory.Thread{}, sqlstore.ThreadNotFound(resourceID, threadID)
	}
	return t, err
}

// ListThreads implements [memory.Store.ListThreads].
func (s *Store) ListThreads(ctx context.Context, resourceID string, opts memory.ListThreadsOptions) (memory.ThreadPage, error) {
	page, err := s.listThreads(ctx, resourceID, opts)
	if err != nil {
		return memory.ThreadPage{}, fmt.Errorf("pgstore: list threads: %w", err)
	}
	return page, nil
}

func (s *Store) listThreads(ctx context.Context, resourceID string, opts memory.ListThreadsOptions) (memory.ThreadPage, error) {
	opts, order, err := sqlstore.ThreadOrder(resourceID, opts)
	if err != nil {
		return memory.ThreadPage{}, err
	}
	var page memory.ThreadPage
	err = s.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		page, err = sqlstore.ThreadPage(opts,
			tx.QueryRow(ctx, `SELECT COUNT(*) FROM keel_threads WHERE resource_id = $1`, resourceID),
			func(off, n int) ([]memory.Thread, error) {
				rows, err := tx.Query(ctx, `SELECT `+threadColumns+` FROM keel_threads WHERE resource_id = $1
					ORDER BY `+order+` LIMIT $2 OFFSET $3`, resourceID, n, off)
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
		return memory.Thread{}, fmt.Errorf("pgstore: update thread: %w", err)
	}
	if err := memory.CheckID("thread", t.ID); err != nil {
		return memory.Thread{}, fmt.Errorf("pgstore: update thread: %w", err)
	}
	meta, _ := memory.EncodeMetadata(t.Metadata) // CheckThread checked it encodes
	out, err := scanThread(s.pool.QueryRow(ctx, `UPDATE keel_threads SET title = $1, metadata = $2, updated_at = $3
		WHERE id = $4 AND resource_id = $5 RETURNING `+threadColumns,
		t.Title, string(meta), memory.StoredTime(s.now()), t.ID, t.ResourceID))
	if errors.Is(err, pgx.ErrNoRows) {
		err = sqlstore.ThreadNotFound(t.ResourceID, t.ID)
	}
	if err != nil {
		return memory.Thread{}, fmt.Errorf("pgstore: update thread: %w", err)
	}
	return out, nil
}

// DeleteThread implements [memory.Store.DeleteThread]. The blobs only its
// messages held go with it.
func (s *Store) DeleteThread(ctx context.Context, resourceID, threadID string) error {
	err := s.writeTx(ctx, func(tx pgx.Tx) error {
		if err := lockThread(ctx, tx, resourceID, threadID); err != nil {
			return err
		}
		var digests []string
		err := tx.QueryRow(ctx, `SELECT COALESCE(array_agg(DISTINCT digest), '{}') FROM keel_message_blobs WHERE thread_id = $1`, threadID).Scan(&digests)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM keel_threads WHERE id = $1`, threadID); err != nil {
			return err
		}
		return dropUnused(ctx, tx, digests)
	})
	if err != nil {
		return fmt.Errorf("pgstore: delete thread: %w", err)
	}
	return nil
}
