package sqlstore

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/keel-go/keel/memory"
)

// Row is one row of a query's result: pgx.Row and *sql.Row both are.
type Row interface {
	Scan(dest ...any) error
}

// BlobReader returns a function reading blobs, each once, as a page of
// messages needs them. query(digest) returns the row of the blob's size
// and data; a row that is not there (its Scan returns an error matching
// noRows, the driver's own) is reported wrapping [memory.ErrCorrupt], as
// is data whose length or digest is not the one stored. Each blob read
// from the database adds one to reads.
func BlobReader(query func(digest string) Row, noRows error, reads *atomic.Int64) func(string) ([]byte, error) {
	cache := make(map[string][]byte)
	return func(digest string) ([]byte, error) {
		if data, ok := cache[digest]; ok {
			return data, nil
		}
		var (
			data []byte
			size int
		)
		err := query(digest).Scan(&size, &data)
		if errors.Is(err, noRows) {
			return nil, fmt.Errorf("%w: blob %s is missing", memory.ErrCorrupt, digest)
		}
		if err != nil {
			return nil, err
		}
		reads.Add(1)
		if size != len(data) {
			return nil, fmt.Errorf("%w: blob %s has %d bytes; its size says %d", memory.ErrCorrupt, digest, len(data), size)
		}
		if err := memory.VerifyBlob(digest, data); err != nil {
			return nil, err
		}
		cache[digest] = data
		return data, nil
	}
}
