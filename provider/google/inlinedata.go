package google

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
)

// The SDK turns a request into JSON three times over (struct → JSON → map
// → JSON), so a 10 MiB file would be held as base64 several times at once.
// Instead each inline file goes through the SDK as a small placeholder,
// and the transport writes the file's base64 into the body while it is
// sent, straight from the caller's bytes: a file costs no copy at all.

// placeholderLen is the length of a placeholder's bytes: a random nonce
// and the file's index. Its base64 has no padding, so it appears in the
// body exactly as computed here.
const placeholderLen = 24

// inlineFiles are the inline files of one request and their placeholders.
type inlineFiles struct {
	nonce  [placeholderLen - 8]byte
	files  [][]byte
	tokens [][]byte // the base64 of each file's placeholder
}

func newInlineFiles() *inlineFiles {
	f := &inlineFiles{}
	_, _ = rand.Read(f.nonce[:]) // crypto/rand.Read never fails
	return f
}

// add records data and returns the placeholder to give the SDK instead.
func (f *inlineFiles) add(data []byte) []byte {
	ph := make([]byte, placeholderLen)
	copy(ph, f.nonce[:])
	binary.BigEndian.PutUint64(ph[len(f.nonce):], uint64(len(f.files)))
	f.files = append(f.files, data)
	f.tokens = append(f.tokens, []byte(base64.StdEncoding.EncodeToString(ph)))
	return ph
}

// body returns the request body with every placeholder replaced by its
// file's base64, as a reader, and the body's length. It fails when a
// placeholder is missing from body, which would mean the SDK changed how
// it encodes bytes.
func (f *inlineFiles) body(body []byte) (newBody func() io.Reader, length int64, err error) {
	type cut struct {
		at   int
		file int
	}
	cuts := make([]cut, 0, len(f.files))
	for i, tok := range f.tokens {
		at := bytes.Index(body, tok)
		if at < 0 {
			return nil, 0, fmt.Errorf("google: send request: inline file %d is missing from the request body", i)
		}
		cuts = append(cuts, cut{at, i})
	}
	// The SDK keeps the contents' order, but sorting keeps this right
	// whatever it does.
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j].at < cuts[j-1].at; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	length = int64(len(body))
	for _, c := range cuts {
		length += int64(base64.StdEncoding.EncodedLen(len(f.files[c.file])) - len(f.tokens[c.file]))
	}
	newBody = func() io.Reader {
		readers := make([]io.Reader, 0, 2*len(cuts)+1)
		prev := 0
		for _, c := range cuts {
			readers = append(readers, bytes.NewReader(body[prev:c.at]), &base64Reader{src: f.files[c.file]})
			prev = c.at + len(f.tokens[c.file])
		}
		readers = append(readers, bytes.NewReader(body[prev:]))
		return io.MultiReader(readers...)
	}
	return newBody, length, nil
}

// base64Reader reads the standard base64 of src, encoding as it goes.
type base64Reader struct {
	src  []byte
	buf  [4]byte
	pend []byte // encoded bytes not yet read
}

func (r *base64Reader) Read(p []byte) (int, error) {
	if len(r.pend) > 0 {
		n := copy(p, r.pend)
		r.pend = r.pend[n:]
		return n, nil
	}
	if len(r.src) == 0 {
		return 0, io.EOF
	}
	if len(p) < 4 {
		// Too small for one group: encode it aside and hand it out in
		// pieces.
		n := min(3, len(r.src))
		base64.StdEncoding.Encode(r.buf[:], r.src[:n])
		r.src = r.src[n:]
		r.pend = r.buf[:]
		return r.Read(p)
	}
	n := len(p) / 4 * 3
	if n >= len(r.src) {
		n = len(r.src) // the last group may be padded
	}
	base64.StdEncoding.Encode(p, r.src[:n])
	r.src = r.src[n:]
	return base64.StdEncoding.EncodedLen(n), nil
}
