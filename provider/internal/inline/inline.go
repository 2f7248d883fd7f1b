package inline

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/keel-go/keel"
)

// ErrBody reports a request body that lacks a file's placeholder: the
// SDK changed how it writes its parameters. It is a bug to report, never
// worth sending again.
var ErrBody = errors.New("inline file missing from the request body")

// placeholderLen is the length of a placeholder's bytes: a random nonce
// and the file's index. A multiple of 3, so that its base64 has no
// padding and appears in a body exactly as [Files] computes it.
const placeholderLen = 24

// Files are the inline files of one request. The zero value is not
// usable; call [New]. A Files is used by one call at a time.
type Files struct {
	nonce [placeholderLen - 8]byte
	files []file
}

// file is one file's content and the token that stands for its base64 in
// the body the SDK writes.
type file struct {
	token []byte
	raw   []byte // encoded while the body is sent, unless
	b64   string // is the content's standard base64, sent as is
	isB64 bool
}

// New returns an empty set of files with a fresh nonce.
func New() *Files {
	fs := &Files{}
	_, _ = rand.Read(fs.nonce[:]) // crypto/rand.Read never fails
	return fs
}

// Len is how many files were registered.
func (fs *Files) Len() int { return len(fs.files) }

// Text registers f's inline content and returns the text to put where its
// standard base64 goes in a string the SDK writes into the body (a data:
// URL may carry it after its "data:<type>;base64," head). It fails, with
// the error of [keel.FilePart.InlineData], for content that cannot be
// decoded.
func (fs *Files) Text(f keel.FilePart) (string, error) {
	if _, err := fs.Bytes(f); err != nil {
		return "", err
	}
	return string(fs.files[len(fs.files)-1].token), nil
}

// Bytes registers f's inline content and returns the bytes to give an SDK
// field of type []byte, which the SDK writes into the body as their
// standard base64. It fails as [Files.Text] does.
func (fs *Files) Bytes(f keel.FilePart) ([]byte, error) {
	c, err := content(f)
	if err != nil {
		return nil, err
	}
	ph := make([]byte, placeholderLen)
	copy(ph, fs.nonce[:])
	binary.BigEndian.PutUint64(ph[len(fs.nonce):], uint64(len(fs.files)))
	c.token = []byte(base64.StdEncoding.EncodeToString(ph))
	fs.files = append(fs.files, c)
	return ph, nil
}

// content is f's content in the form that costs least to send: the
// standard base64 the part was made from or a data: URL carries, else the
// bytes to encode.
func content(f keel.FilePart) (file, error) {
	if f.Source() == keel.SourceDataURL {
		header, payload, ok := strings.Cut(f.URL, ",")
		if ok && strings.HasSuffix(strings.ToLower(header), ";base64") && isStdBase64(payload) {
			return file{b64: payload, isB64: true}, nil
		}
	}
	data, err := f.InlineData()
	if err != nil {
		return file{}, err
	}
	return file{raw: data}, nil
}

// stdAlphabet marks the bytes of the standard base64 alphabet.
var stdAlphabet = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = true
	}
	return t
}()

// isStdBase64 reports whether s is standard base64 with its padding, as
// the providers decode it: a length that is a multiple of 4, the standard
// alphabet, and at most two '=' at the end. Checking costs a fraction of
// decoding and encoding again.
func isStdBase64(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	body := strings.TrimSuffix(strings.TrimSuffix(s, "="), "=")
	for i := 0; i < len(body); i++ {
		if !stdAlphabet[body[i]] {
			return false
		}
	}
	return true
}

func (f file) encodedLen() int64 {
	if f.isB64 {
		return int64(len(f.b64))
	}
	return int64(base64.StdEncoding.EncodedLen(len(f.raw)))
}

func (f file) reader() io.Reader {
	if f.isB64 {
		return strings.NewReader(f.b64)
	}
	return &base64Reader{src: f.raw}
}

// Request returns a copy of req whose body is req's with every placeholder
// replaced by its file's base64, read from the file while the body is
// sent; GetBody gives the same body again. With no files it returns req
// itself. It fails with an error wrapping [ErrBody] when a placeholder is
// missing from the body.
func (fs *Files) Request(req *http.Request) (*http.Request, error) {
	if len(fs.files) == 0 || req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	newBody, length, err := fs.splice(body)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Body = newBody()
	out.GetBody = func() (io.ReadCloser, error) { return newBody(), nil }
	out.ContentLength = length
	return out, nil
}

// splice cuts body around each placeholder and returns a function making
// readers of the completed body, and its length.
func (fs *Files) splice(body []byte) (func() io.ReadCloser, int64, error) {
	type cut struct{ at, file int }
	cuts := make([]cut, 0, len(fs.files))
	length := int64(len(body))
	for i, f := range fs.files {
		at := bytes.Index(body, f.token)
		if at < 0 {
			return nil, 0, fmt.Errorf("%w: file %d of %d", ErrBody, i+1, len(fs.files))
		}
		cuts = append(cuts, cut{at, i})
		length += f.encodedLen() - int64(len(f.token))
	}
	// The SDKs keep the files' order, but sorting keeps this right
	// whatever they do.
	slices.SortFunc(cuts, func(a, b cut) int { return a.at - b.at })
	newBody := func() io.ReadCloser {
		readers := make([]io.Reader, 0, 2*len(cuts)+1)
		prev := 0
		for _, c := range cuts {
			f := fs.files[c.file]
			readers = append(readers, bytes.NewReader(body[prev:c.at]), f.reader())
			prev = c.at + len(f.token)
		}
		readers = append(readers, bytes.NewReader(body[prev:]))
		return io.NopCloser(io.MultiReader(readers...))
	}
	return newBody, length, nil
}
