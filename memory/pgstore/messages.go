package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// SaveMessages implements [memory.Store.SaveMessages], in one transaction.
// A replaced message with a zero CreatedAt keeps its stored time, and so
// its place in the thread. Saving sets the thread's UpdatedAt to now.
func (s *Store) SaveMessages(ctx context.Context, resourceID, threadID string, msgs []keel.Message) ([]keel.Message, error) {
	enc, blobs, err := memory.EncodeMessages(msgs)
	if err != nil {
		return nil, fmt.Errorf("pgstore: save messages: %w", err)
	}
	var saved []memory.EncodedMessage
	err = s.writeTx(ctx, func(tx pgx.Tx) error {
		// A fresh copy per attempt: saveMessage fills in times.
		saved = slices.Clone(enc)
		if err := lockThread(ctx, tx, resourceID, threadID); err != nil {
			return err
		}
		now := memory.StoredTime(s.now())
		if err := putBlobs(ctx, tx, blobs); err != nil {
			return err
		}
		var released []string
		for i := range saved {
			old, err := saveMessage(ctx, tx, threadID, &saved[i], now)
			if err != nil {
				return err
			}
			released = append(released, old...)
		}
		if _, err := tx.Exec(ctx, `UPDATE keel_threads SET updated_at = $1 WHERE id = $2`, now, threadID); err != nil {
			return err
		}
		return dropUnused(ctx, tx, released)
	})
	if err != nil {
		return nil, fmt.Errorf("pgstore: save messages: %w", err)
	}
	return memory.Stored(msgs, saved), nil
}

// saveMessage inserts e, or replaces the message with its ID, setting a
// zero CreatedAt. It returns the digests the replaced message held.
func saveMessage(ctx context.Context, tx pgx.Tx, threadID string, e *memory.EncodedMessage, now time.Time) ([]string, error) {
	var (
		created time.Time
		old     []string
	)
	err := tx.QueryRow(ctx, `SELECT created_at, (SELECT COALESCE(array_agg(digest), '{}') FROM keel_message_blobs
			WHERE thread_id = $1 AND message_id = $2)
		FROM keel_messages WHERE thread_id = $1 AND id = $2`, threadID, e.ID).Scan(&created, &old)
	exists := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, err
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = now
		if exists {
			e.CreatedAt = created.UTC()
		}
	}
	if exists {
		if _, err := tx.Exec(ctx, `DELETE FROM keel_message_blobs WHERE thread_id = $1 AND message_id = $2`, threadID, e.ID); err != nil {
			return nil, err
		}
		_, err = tx.Exec(ctx, `UPDATE keel_messages SET role = $1, parts = $2, metadata = $3, created_at = $4 WHERE thread_id = $5 AND id = $6`,
			string(e.Role), string(e.Parts), string(e.Metadata), e.CreatedAt, threadID, e.ID)
	} else {
		_, err = tx.Exec(ctx, `INSERT INTO keel_messages (thread_id, id, role, parts, metadata, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
			threadID, e.ID, string(e.Role), string(e.Parts), string(e.Metadata), e.CreatedAt)
	}
	if err != nil {
		return nil, err
	}
	if len(e.Digests) > 0 {
		_, err = tx.Exec(ctx, `INSERT INTO keel_message_blobs (thread_id, message_id, digest) SELECT $1, $2, unnest($3::text[])`,
			threadID, e.ID, e.Digests)
		if err != nil {
			return nil, err
		}
	}
	return old, nil
}

// ListMessages implements [memory.Store.ListMessages]. Each blob the page
// needs is read once, and shared by the parts that hold it.
func (s *Store) ListMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	page, err := s.listMessages(ctx, resourceID, threadID, opts)
	if err != nil {
		return memory.MessagePage{}, fmt.Errorf("pgstore: list messages: %w", err)
	}
	return page, nil
}

func (s *Store) listMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	if err := opts.Check(); err != nil {
		return memory.MessagePage{}, err
	}
	var page memory.MessagePage
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		if err := checkThread(ctx, tx, resourceID, threadID); err != nil {
			return err
		}
		var err error
		page, err = sqlstore.MessagePage(opts, tx.QueryRow(ctx, `SELECT COUNT(*) FROM keel_messages WHERE thread_id = $1`, threadID),
			func(off, n int) ([]memory.EncodedMessage, error) { return readMessages(ctx, tx, threadID, off, n) },
			s.blobReader(ctx, tx))
		return err
	})
	return page, err
}

// readMessages reads the rows first: a connection runs one query at a
// time, and blobs are read after.
func readMessages(ctx context.Context, tx pgx.Tx, threadID string, off, n int) ([]memory.EncodedMessage, error) {
	rows, err := tx.Query(ctx, `SELECT id, role, parts, metadata, created_at FROM keel_messages
		WHERE thread_id = $1 ORDER BY created_at, seq LIMIT $2 OFFSET $3`, threadID, n, off)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return sqlstore.ScanAll(rows, scanMessage)
}

func scanMessage(row sqlstore.Row) (memory.EncodedMessage, error) {
	var (
		e                 memory.EncodedMessage
		role, parts, meta string
	)
	if err := row.Scan(&e.ID, &role, &parts, &meta, &e.CreatedAt); err != nil {
		return memory.EncodedMessage{}, err
	}
	e.Role, e.Parts, e.Metadata, e.CreatedAt = keel.Role(role), []byte(parts), []byte(meta), e.CreatedAt.UTC()
	return e, nil
}
