package anthropic

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// inlineFiles keeps the base64 content of a request's files out of the
// JSON the SDK builds: each file's data is a short placeholder there, and
// [inlineFiles.splice] streams the content into the body as it is sent.
// The SDK's JSON encoding would otherwise hold several copies of every
// file at once (the base64 string, the encoder's growing buffer, the
// body), over 150 MiB for a 10 MiB PDF.
type inlineFiles struct {
	files []inlineFile
}

// inlineFile is one file's content: raw bytes to encode while sending, or
// base64 that is sent as is.
type inlineFile struct {
	raw    []byte
	base64 string
}

func (f inlineFile) size() int64 {
	if f.raw != nil {
		return int64(base64.StdEncoding.EncodedLen(len(f.raw)))
	}
	return int64(len(f.base64))
}

func (f inlineFile) reader() io.Reader {
	if f.raw != nil {
		return &base64Reader{src: f.raw}
	}
	return strings.NewReader(f.base64)
}

// placeholderPrefix starts every placeholder. It is random per process, so
// no text a caller sends can be taken for one.
var placeholderPrefix = "keel-inline-" + rand.Text() + "-"

// add registers a file and returns the placeholder to put in its place.
func (in *inlineFiles) add(f inlineFile) string {
	in.files = append(in.files, f)
	return placeholderPrefix + strconv.Itoa(len(in.files)-1)
}

// options returns the SDK option that splices the files in, if any.
func (in *inlineFiles) options() []option.RequestOption {
	if len(in.files) == 0 {
		return nil
	}
	return []option.RequestOption{option.WithMiddleware(in.splice)}
}

// errPlaceholderMissing means the SDK's JSON lost a placeholder, which
// would send a request without its file.
var errPlaceholderMissing = errors.New("anthropic: build request: file placeholder missing from the request body")

// splice is an SDK middleware: it replaces each placeholder string of the
// JSON body with the file's base64, read while the body is written.
func (in *inlineFiles) splice(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	if req.GetBody == nil {
		return nil, errPlaceholderMissing
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return nil, err
	}
	// Cut the body around each placeholder, keeping its quotes.
	var pieces [][]byte
	pos := 0
	for i := range in.files {
		token := []byte(`"` + placeholderPrefix + strconv.Itoa(i) + `"`)
		j := bytes.Index(body[pos:], token)
		if j < 0 {
			return nil, errPlaceholderMissing
		}
		pieces = append(pieces, body[pos:pos+j+1])
		pos += j + len(token) - 1
	}
	pieces = append(pieces, body[pos:])

	length := int64(0)
	for _, p := range pieces {
		length += int64(len(p))
	}
	for _, f := range in.files {
		length += f.size()
	}
	newBody := func() (io.ReadCloser, error) {
		readers := make([]io.Reader, 0, 2*len(pieces))
		for i, p := range pieces {
			readers = append(readers, bytes.NewReader(p))
			if i < len(in.files) {
				readers = append(readers, in.files[i].reader())
			}
		}
		return io.NopCloser(io.MultiReader(readers...)), nil
	}
	req.Body, _ = newBody()
	req.GetBody = newBody
	req.ContentLength = length
	return next(req)
}

// base64Reader reads src as standard base64, one chunk at a time, so a
// large file is never held encoded in full.
type base64Reader struct {
	src []byte
	buf []byte
	out []byte
}

// chunk is a multiple of 3 bytes, so only the last chunk has padding.
const chunk = 48 << 10

func (r *base64Reader) Read(p []byte) (int, error) {
	if len(r.out) == 0 {
		if len(r.src) == 0 {
			return 0, io.EOF
		}
		n := min(len(r.src), chunk)
		if r.buf == nil {
			r.buf = make([]byte, base64.StdEncoding.EncodedLen(min(len(r.src), chunk)))
		}
		m := base64.StdEncoding.EncodedLen(n)
		base64.StdEncoding.Encode(r.buf[:m], r.src[:n])
		r.out, r.src = r.buf[:m], r.src[n:]
	}
	c := copy(p, r.out)
	r.out = r.out[c:]
	return c, nil
}
