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
func putBlobs(c conn, blobs []memory.Blob) error {
	for _, b := range blobs {
		var n int
		if err := c.queryRow(qBlobKnown, b.Digest).Scan(&n); err != nil {
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
		if _, err := c.exec(qInsertBlob, b.Digest, len(data), data); err != nil {
			return err
		}
	}
	return nil
}

// queryStrings returns the one column of a query's rows.
func queryStrings(c conn, query string, args ...any) ([]string, error) {
	rows, err := c.query(query, args...)
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
func dropUnused(c conn, digests []string) error {
	for _, d := range digests {
		if _, err := c.exec(qDropUnheldBlob, d, d); err != nil {
			return err
		}
	}
	return nil
}

// blobReader returns a function reading blobs in c's transaction, each
// once, checked against its digest and size.
func (s *Store) blobReader(c conn) func(string) ([]byte, error) {
	return sqlstore.BlobReader(func(digest string) sqlstore.Row {
		return c.queryRow(qReadBlob, digest)
	}, sql.ErrNoRows, &s.reads)
}

// BlobStats implements [memory.BlobReporter].
func (s *Store) BlobStats(ctx context.Context) (memory.BlobStats, error) {
	st := memory.BlobStats{Reads: s.reads.Load()}
	err := s.one(ctx).queryRow(qBlobStats).Scan(&st.Blobs, &st.Bytes)
	if err != nil {
		return memory.BlobStats{}, fmt.Errorf("sqlitestore: blob stats: %w", err)
	}
	return st, nil
}
