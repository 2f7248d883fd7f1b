// Package upload builds what keel's adapters send to their providers'
// file stores (keel.FileStore): multipart bodies that read the file as
// they are sent, and the scope a reference is valid in.
//
// The SDKs would do it for them (openai-go's Files.New, anthropic-sdk-go's
// Beta.Files.Upload), but both marshal the whole multipart body into a
// buffer first: a second copy of a 25 MB file. A [Multipart] body is its
// head, the file and its tail, read one after the other, with its length
// known beforehand (Content-Length, not chunked encoding, which some
// gateways in front of the APIs refuse), and no goroutine: an io.Pipe
// would stream too, but would hide the length.
package upload

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strings"
	"time"
)

// DefaultExpiry is how long an adapter counts on a provider that keeps
// files until they are deleted (OpenAI's user_data files, Anthropic's
// Files API): keel deletes nothing, but a reference is not trusted for
// ever; a reference the provider no longer knows is answered with
// keel.FaultFileGone before then, and the file is uploaded again.
const DefaultExpiry = 30 * 24 * time.Hour

// Field is a form field sent before the file.
type Field struct{ Name, Value string }

// Multipart is a multipart/form-data body whose last part is a file.
type Multipart struct {
	head, tail  []byte
	open        func() io.Reader
	size        int64
	contentType string
}

// NewMultipart returns the body of fields, then the file whose bytes open
// reads (size of them), under the form field fileField, named filename
// and typed mediaType. A name's quotes and backslashes are escaped, and
// its control characters (a CR or LF that would start a header of its
// own) replaced.
func NewMultipart(fields []Field, fileField, filename, mediaType string, open func() io.Reader, size int64) (*Multipart, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f.Name, f.Value); err != nil {
			return nil, err
		}
	}
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, quote(fileField), quote(filename)))
	h.Set("Content-Type", mediaType)
	if _, err := w.CreatePart(h); err != nil {
		return nil, err
	}
	n := buf.Len()
	// The writer writes the closing boundary to the same buffer: what
	// comes after n is the tail.
	if err := w.Close(); err != nil {
		return nil, err
	}
	all := buf.Bytes()
	return &Multipart{head: all[:n], tail: all[n:], open: open, size: size, contentType: w.FormDataContentType()}, nil
}

// ContentType is the body's Content-Type, with its boundary.
func (m *Multipart) ContentType() string { return m.contentType }

// Len is the body's length in bytes.
func (m *Multipart) Len() int64 { return int64(len(m.head)) + m.size + int64(len(m.tail)) }

// Reader returns a new reader of the whole body.
func (m *Multipart) Reader() io.Reader {
	return io.MultiReader(bytes.NewReader(m.head), m.open(), bytes.NewReader(m.tail))
}

// ReadCloser returns a new reader of the whole body, for an
// http.Request's Body and GetBody.
func (m *Multipart) ReadCloser() (io.ReadCloser, error) { return io.NopCloser(m.Reader()), nil }

var quoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// quote escapes s for a quoted header parameter.
func quote(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, s)
	return quoter.Replace(s)
}

// Scope names where a provider's file references are valid: the
// provider, its base URL and the account, known by the first 16 hex
// digits of the key's SHA-256 (the key itself is never written down),
// then whatever else selects the account (OpenAI's organization and
// project), each as given.
func Scope(provider, baseURL, key string, more ...string) string {
	sum := sha256.Sum256([]byte(key))
	s := provider + " " + strings.TrimRight(baseURL, "/") + " key:" + hex.EncodeToString(sum[:8])
	for _, m := range more {
		if m != "" {
			s += " " + m
		}
	}
	return s
}
