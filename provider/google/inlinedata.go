package google

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// The SDK turns a request into JSON three times over (struct → JSON → map
// → JSON), so a 10 MiB file would be held as base64 several times at once.
// Instead each inline file goes through the SDK as a small placeholder,
// and the transport writes the file's base64 into the body while it is
// sent, straight from the caller's bytes: a file costs no copy at all.
// A file that already is standard base64 (a data: URL's payload) is
// written as it is, neither decoded nor encoded again.

// placeholderLen is the length of a placeholder's bytes: a random nonce
// and the file's index. Its base64 has no padding, so it appears in the
// body exactly as computed here.
const placeholderLen = 24

// inlineFiles are the inline files of one request and their placeholders.
type inlineFiles struct {
	nonce  [placeholderLen - 8]byte
	files  []inlineFile
	tokens [][]byte // the base64 of each file's placeholder
}

// inlineFile is a file's bytes, or their standard base64 as the caller
// gave it.
type inlineFile struct {
	data []byte
	b64  string
	enc  bool // b64 holds the file
}

// encodedLen is the length of the file's base64.
func (f inlineFile) encodedLen() int {
	if f.enc {
		return len(f.b64)
	}
	return base64.StdEncoding.EncodedLen(len(f.data))
}

// reader reads the file's base64.
func (f inlineFile) reader() io.Reader {
	if f.enc {
		return strings.NewReader(f.b64)
	}
	return &base64Reader{src: f.data}
}

func newInlineFiles() *inlineFiles {
	f := &inlineFiles{}
	_, _ = rand.Read(f.nonce[:]) // crypto/rand.Read never fails
	return f
}

// add records data and returns the placeholder to give the SDK instead.
func (f *inlineFiles) add(data []byte) []byte {
	return f.record(inlineFile{data: data})
}

// addBase64 records a file given as standard, padded base64 (see
// isStdBase64), to be sent as it is, and returns the placeholder to give
// the SDK instead.
func (f *inlineFiles) addBase64(b64 string) []byte {
	return f.record(inlineFile{b64: b64, enc: true})
}

func (f *inlineFiles) record(file inlineFile) []byte {
	ph := make([]byte, placeholderLen)
	copy(ph, f.nonce[:])
	binary.BigEndian.PutUint64(ph[len(f.nonce):], uint64(len(f.files)))
	f.files = append(f.files, file)
	f.tokens = append(f.tokens, []byte(base64.StdEncoding.EncodeToString(ph)))
	return ph
}

// stdBase64Alphabet marks the bytes of the standard base64 alphabet.
var stdBase64Alphabet = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = true
	}
	return t
}()

// isStdBase64 reports whether s is standard base64 with its padding, as
// the API decodes it: a length that is a multiple of 4, the standard
// alphabet, and at most two '=' at the end. Checking costs a fraction of
// decoding and encoding again.
func isStdBase64(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	body := strings.TrimSuffix(strings.TrimSuffix(s, "="), "=")
	for i := 0; i < len(body); i++ {
		if !stdBase64Alphabet[body[i]] {
			return false
		}
	}
	return true
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
		length += int64(f.files[c.file].encodedLen() - len(f.tokens[c.file]))
	}
	newBody = func() io.Reader {
		readers := make([]io.Reader, 0, 2*len(cuts)+1)
		prev := 0
		for _, c := range cuts {
			readers = append(readers, bytes.NewReader(body[prev:c.at]), f.files[c.file].reader())
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
