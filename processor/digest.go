package processor

import (
	"bytes"
	"sync"

	"github.com/keel-go/keel"
)

// fileDigests remembers the digests a run computed for files that came
// without one (keel.FilePart.SHA256 empty: a run without memory, or a
// store that does not set it), so that a run hashes each file at most once
// however many calls it makes. Entries are found by content, never by
// address: the bytes of a part given as bytes (equal slices compare at
// once when they are the same slice, as a prompt's clone and the run's
// message are), or the text of a data: URL.
type fileDigests struct {
	mu    sync.Mutex
	known []knownDigest
}

type knownDigest struct {
	data []byte // for a part given as bytes
	url  string // for a data: URL
	sum  string
}

// fileDigest returns the lower-case hex SHA-256 of f's inline content:
// f.SHA256 when it is set, else the one the run computed before, else
// computed now. data is f's bytes when they were at hand or had to be
// decoded for the digest, and nil when a data: URL was not decoded (call
// f.InlineData when they are needed). The error is f.InlineData's: the
// content is not inline, or cannot be decoded.
func (r *Run) fileDigest(f keel.FilePart) (sum string, data []byte, err error) {
	if f.SHA256 != "" {
		return f.SHA256, f.Data, nil
	}
	byBytes := f.Source() == keel.SourceBytes
	d := &r.digests
	d.mu.Lock()
	for _, k := range d.known {
		if byBytes && k.data != nil && bytes.Equal(k.data, f.Data) || !byBytes && k.url != "" && k.url == f.URL {
			d.mu.Unlock()
			return k.sum, f.Data, nil
		}
	}
	d.mu.Unlock()

	data, err = f.InlineData()
	if err != nil {
		return "", nil, err
	}
	sum, _ = keel.FilePart{Data: data}.Digest() // bytes are inline: no error
	k := knownDigest{sum: sum}
	if byBytes {
		k.data = nonNil(data)
	} else {
		k.url = f.URL
	}
	d.mu.Lock()
	d.known = append(d.known, k)
	d.mu.Unlock()
	return sum, data, nil
}

// nonNil returns data, or an empty non-nil slice for nil, so that an
// entry for an empty file is told from an entry for a data: URL.
func nonNil(data []byte) []byte {
	if data == nil {
		return []byte{}
	}
	return data
}

// inlineData returns f's bytes: data when fileDigest had them, else
// decoded.
func inlineData(f keel.FilePart, data []byte) ([]byte, error) {
	if data != nil || f.Source() == keel.SourceBytes {
		return data, nil
	}
	return f.InlineData()
}
