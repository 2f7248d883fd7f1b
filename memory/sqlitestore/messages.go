package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

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
		return nil, fmt.Errorf("sqlitestore: save messages: %w", err)
	}
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		if err := threadOwner(ctx, tx, resourceID, threadID); err != nil {
			return err
		}
		now := memory.StoredTime(s.now())
		if err := putBlobs(ctx, tx, blobs); err != nil {
			return err
		}
		var released []string
		for i := range enc {
			old, err := saveMessage(ctx, tx, threadID, &enc[i], now)
			if err != nil {
				return err
			}
			released = append(released, old...)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE threads SET updated_at = ? WHERE id = ?`, millis(now), threadID); err != nil {
			return err
		}
		return dropUnused(ctx, tx, released)
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: save messages: %w", err)
	}
	return memory.Stored(msgs, enc), nil
}

// saveMessage inserts e, or replaces the message with its ID, setting a
// zero CreatedAt. It returns the digests the replaced message held.
func saveMessage(ctx context.Context, tx *sql.Tx, threadID string, e *memory.EncodedMessage, now time.Time) ([]string, error) {
	var created int64
	err := tx.QueryRowContext(ctx, `SELECT created_at FROM messages WHERE thread_id = ? AND id = ?`, threadID, e.ID).Scan(&created)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = now
		if exists {
			e.CreatedAt = fromMillis(created)
		}
	}
	var old []string
	if exists {
		old, err = queryStrings(ctx, tx, `SELECT digest FROM message_blobs WHERE thread_id = ? AND message_id = ?`, threadID, e.ID)
		if err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM message_blobs WHERE thread_id = ? AND message_id = ?`, threadID, e.ID); err != nil {
			return nil, err
		}
		_, err = tx.ExecContext(ctx, `UPDATE messages SET role = ?, parts = ?, metadata = ?, created_at = ? WHERE thread_id = ? AND id = ?`,
			string(e.Role), string(e.Parts), string(e.Metadata), millis(e.CreatedAt), threadID, e.ID)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO messages (thread_id, id, seq, role, parts, metadata, created_at)
			VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = ?), ?, ?, ?, ?)`,
			threadID, e.ID, threadID, string(e.Role), string(e.Parts), string(e.Metadata), millis(e.CreatedAt))
	}
	if err != nil {
		return nil, err
	}
	for _, d := range e.Digests {
		if _, err := tx.ExecContext(ctx, `INSERT INTO message_blobs (thread_id, message_id, digest) VALUES (?, ?, ?)`, threadID, e.ID, d); err != nil {
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
		return memory.MessagePage{}, fmt.Errorf("sqlitestore: list messages: %w", err)
	}
	return page, nil
}

func (s *Store) listMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	if err := opts.Check(); err != nil {
		return memory.MessagePage{}, err
	}
	var page memory.MessagePage
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := threadOwner(ctx, tx, resourceID, threadID); err != nil {
			return err
		}
		var err error
		page, err = sqlstore.MessagePage(opts, tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE thread_id = ?`, threadID),
			func(off, n int) ([]memory.EncodedMessage, error) { return readMessages(ctx, tx, threadID, off, n) },
			s.blobReader(ctx, tx))
		return err
	})
	return page, err
}

// readMessages reads the rows first, so that no result set is open while
// blobs are read.
func readMessages(ctx context.Context, tx *sql.Tx, threadID string, off, n int) ([]memory.EncodedMessage, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, role, parts, metadata, created_at FROM messages
		WHERE thread_id = ? ORDER BY created_at, seq LIMIT ? OFFSET ?`, threadID, n, off)
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
