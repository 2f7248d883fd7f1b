package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/sqlstore"
)

// putBlobs stores the blobs the database does not hold yet. Known blobs
// are only looked up, so their bytes are not sent again. A known blob
// deleted by a concurrent transaction before this one refers to it makes
// the foreign key of keel_message_blobs fail, and writeTx runs the save
// again, which then stores it.
func putBlobs(ctx context.Context, tx pgx.Tx, blobs []memory.Blob) error {
	if len(blobs) == 0 {
		return nil
	}
	// In digest order, so that two transactions inserting the same new
	// blobs wait for each other instead of deadlocking.
	blobs = slices.SortedFunc(slices.Values(blobs), func(a, b memory.Blob) int { return strings.Compare(a.Digest, b.Digest) })
	digests := make([]string, len(blobs))
	for i, b := range blobs {
		digests[i] = b.Digest
	}
	var known []string
	if err := tx.QueryRow(ctx, `SELECT COALESCE(array_agg(digest), '{}') FROM keel_blobs WHERE digest = ANY($1)`, digests).Scan(&known); err != nil {
		return err
	}
	for _, b := range blobs {
		if slices.Contains(known, b.Digest) {
			continue
		}
		data := b.Data
		if data == nil {
			data = []byte{} // NOT NULL: an empty file is an empty blob
		}
		if _, err := tx.Exec(ctx, `INSERT INTO keel_blobs (digest, size, data) VALUES ($1, $2, $3) ON CONFLICT (digest) DO NOTHING`,
			b.Digest, len(data), data); err != nil {
			return err
		}
	}
	return nil
}

// dropUnused deletes those of digests no message holds any more. It locks
// the blobs first: that waits for transactions saving messages that hold
// them (their foreign key checks lock the blobs too), so that the delete,
// a new statement with a new snapshot, sees those messages.
func dropUnused(ctx context.Context, tx pgx.Tx, digests []string) error {
	if len(digests) == 0 {
		return nil
	}
	digests = slices.Clone(digests)
	slices.Sort(digests)
	digests = slices.Compact(digests)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM keel_blobs WHERE digest = ANY($1) ORDER BY digest FOR UPDATE`, digests); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `DELETE FROM keel_blobs b WHERE digest = ANY($1)
		AND NOT EXISTS (SELECT 1 FROM keel_message_blobs m WHERE m.digest = b.digest)`, digests)
	return err
}

// blobReader returns a function reading blobs in tx, each once, checked
// against its digest and size.
func (s *Store) blobReader(ctx context.Context, tx pgx.Tx) func(string) ([]byte, error) {
	return sqlstore.BlobReader(func(digest string) sqlstore.Row {
		return tx.QueryRow(ctx, `SELECT size, data FROM keel_blobs WHERE digest = $1`, digest)
	}, pgx.ErrNoRows, &s.reads)
}

// BlobStats implements [memory.BlobReporter].
func (s *Store) BlobStats(ctx context.Context) (memory.BlobStats, error) {
	st := memory.BlobStats{Reads: s.reads.Load()}
	err := s.pool.QueryRow(ctx, `SELECT COUNT(*), COALESCE(SUM(size), 0) FROM keel_blobs`).Scan(&st.Blobs, &st.Bytes)
	if err != nil {
		return memory.BlobStats{}, fmt.Errorf("pgstore: blob stats: %w", err)
	}
	return st, nil
}
