package sqlstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/stored"
)

// putBlobs stores the blobs the database does not hold yet. Known blobs
// are only looked up, so their bytes are not sent again. They go in
// digest order, so that two PostgreSQL transactions inserting the same
// new blobs wait for each other instead of deadlocking. A known blob
// deleted by a concurrent transaction before this one refers to it makes
// the foreign key of keel_message_blobs fail, and pgstore runs the save
// again, which then stores it.
func putBlobs(tx Tx, blobs []stored.Blob) error {
	if len(blobs) > 1 {
		blobs = slices.SortedFunc(slices.Values(blobs), func(a, b stored.Blob) int { return cmp.Compare(a.Digest, b.Digest) })
	}
	for _, b := range blobs {
		var n int
		if err := tx.QueryRow(qBlobKnown, b.Digest).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		data := b.Data
		if data == nil {
			data = []byte{} // NOT NULL: an empty file is an empty blob, not a missing one
		}
		if _, err := tx.Exec(qInsertBlob, b.Digest, len(data), data); err != nil {
			return err
		}
	}
	return nil
}

// dropUnused deletes those of digests no message holds any more. Where
// the database has row locks it locks each blob first: that waits for
// transactions saving messages that hold it (their foreign key checks
// lock the blob too), so that the delete, a new statement with a new
// snapshot in PostgreSQL, sees those messages.
func (s *Store) dropUnused(tx Tx, digests []string) error {
	digests = slices.Compact(slices.Sorted(slices.Values(digests)))
	for _, d := range digests {
		if s.cfg.RowLocks {
			if _, err := tx.Exec(qLockBlob, d); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(qDropUnheldBlob, d); err != nil {
			return err
		}
	}
	return nil
}

// blobReader returns a function reading blobs in tx, each once, as a page
// of messages needs them, checked against their size and digest: a blob
// that is missing or does not match is an error wrapping
// [memory.ErrCorrupt].
func (s *Store) blobReader(tx Tx) func(string) ([]byte, error) {
	cache := make(map[string][]byte)
	return func(digest string) ([]byte, error) {
		if data, ok := cache[digest]; ok {
			return data, nil
		}
		var (
			data []byte
			size int
		)
		err := tx.QueryRow(qReadBlob, digest).Scan(&size, &data)
		if errors.Is(err, ErrNoRows) {
			return nil, fmt.Errorf("%w: blob %s is missing", memory.ErrCorrupt, digest)
		}
		if err != nil {
			return nil, err
		}
		s.reads.Add(1)
		if size != len(data) {
			return nil, fmt.Errorf("%w: blob %s has %d bytes; its size says %d", memory.ErrCorrupt, digest, len(data), size)
		}
		if err := stored.VerifyBlob(digest, data); err != nil {
			return nil, err
		}
		cache[digest] = data
		return data, nil
	}
}

// BlobStats implements [memory.BlobReporter].
func (s *Store) BlobStats(ctx context.Context) (memory.BlobStats, error) {
	if err := ctx.Err(); err != nil {
		return memory.BlobStats{}, err
	}
	st := memory.BlobStats{Reads: s.reads.Load()}
	err := s.db.One(ctx).QueryRow(qBlobStats).Scan(&st.Blobs, &st.Bytes)
	if err != nil {
		return memory.BlobStats{}, s.fail("blob stats", err)
	}
	return st, nil
}
