package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// putBlobs stores the blobs the file does not hold yet. Known blobs are
// only looked up, so their bytes are not sent to SQLite again.
func putBlobs(ctx context.Context, tx *sql.Tx, blobs []memory.Blob) error {
	for _, b := range blobs {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM blobs WHERE digest = ?`, b.Digest).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		data := b.Data
		if data == nil {
			// NOT NULL: an empty file is an empty blob, not a missing one.
			data = []byte{}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO blobs (digest, size, data) VALUES (?, ?, ?)`, b.Digest, len(data), data); err != nil {
			return err
		}
	}
	return nil
}

// threadDigests returns the blobs the thread's messages hold.
func threadDigests(ctx context.Context, tx *sql.Tx, threadID string) ([]string, error) {
	return queryStrings(ctx, tx, `SELECT DISTINCT digest FROM message_blobs WHERE thread_id = ?`, threadID)
}

func queryStrings(ctx context.Context, tx *sql.Tx, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// dropUnused deletes those of digests no message holds any more.
func dropUnused(ctx context.Context, tx *sql.Tx, digests []string) error {
	for _, d := range digests {
		_, err := tx.ExecContext(ctx,
			`DELETE FROM blobs WHERE digest = ? AND NOT EXISTS (SELECT 1 FROM message_blobs WHERE digest = ?)`, d, d)
		if err != nil {
			return err
		}
	}
	return nil
}

// blobReader returns a function reading blobs in tx, each once, checked
// against its digest and size.
func (s *Store) blobReader(ctx context.Context, tx *sql.Tx) func(string) ([]byte, error) {
	return sqlstore.BlobReader(func(digest string) sqlstore.Row {
		return tx.QueryRowContext(ctx, `SELECT size, data FROM blobs WHERE digest = ?`, digest)
	}, sql.ErrNoRows, &s.reads)
}

// BlobStats implements [memory.BlobReporter].
func (s *Store) BlobStats(ctx context.Context) (memory.BlobStats, error) {
	st := memory.BlobStats{Reads: s.reads.Load()}
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(size), 0) FROM blobs`).Scan(&st.Blobs, &st.Bytes)
	if err != nil {
		return memory.BlobStats{}, fmt.Errorf("sqlitestore: blob stats: %w", err)
	}
	return st, nil
}
