package openai

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/keel-go/keel"

	"github.com/openai/openai-go/v3/option"
)

// inlineData holds the contents of the files one request carries inline.
// The SDK's request is built with a short placeholder string where each
// file's base64 goes, and the body is completed as it is sent, encoding
// each file straight into the one body buffer. A 10 MiB PDF then costs one
// 13.3 MiB body, instead of a data URL string, the SDK's marshalled copy of
// it and the growing buffers in between.
type inlineData struct {
	nonce string
	items []inlineItem
}

type inlineItem struct {
	prefix string // JSON-escaped text before the base64, such as a data URL's head
	data   []byte // encoded when the body is completed, or
	b64    string // already standard base64, copied as is
}

// errInlineData reports a request body whose placeholders do not match its
// files: a bug, never worth sending again.
var errInlineData = errors.New("openai: send: inline file data")

func newInlineData() *inlineData {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &inlineData{nonce: "keel-inline-" + hex.EncodeToString(b[:]) + "-"}
}

func (d *inlineData) add(prefix string, data []byte) string {
	return d.addItem(prefix, inlineItem{data: data})
}

func (d *inlineData) addItem(prefix string, it inlineItem) string {
	quoted, _ := json.Marshal(prefix)
	it.prefix = string(quoted[1 : len(quoted)-1])
	d.items = append(d.items, it)
	return d.nonce + strconv.Itoa(len(d.items)-1)
}

// fileDataURL returns the placeholder of a data: URL of type mediaType
// holding f's inline content. The base64 of a data: URL is passed on
// without being decoded when it is already standard and padded.
func (d *inlineData) fileDataURL(f keel.FilePart, mediaType string) (string, error) {
	prefix := "data:" + mediaType + ";base64,"
	if b64, ok := standardBase64(f); ok {
		return d.addItem(prefix, inlineItem{b64: b64}), nil
	}
	data, err := inlineBytes(f)
	if err != nil {
		return "", err
	}
	return d.add(prefix, data), nil
}

// fileBase64 returns the placeholder of f's inline content as plain
// base64.
func (d *inlineData) fileBase64(f keel.FilePart) (string, error) {
	if b64, ok := standardBase64(f); ok {
		return d.addItem("", inlineItem{b64: b64}), nil
	}
	data, err := inlineBytes(f)
	if err != nil {
		return "", err
	}
	return d.add("", data), nil
}

// standardBase64 returns the part's content as standard, padded base64
// that can go into the body as is, when it has it: the text its bytes were
// made from (keel.FileFromBase64), or the payload of a base64 data: URL.
func standardBase64(f keel.FilePart) (string, bool) {
	if b64, ok := f.StdBase64(); ok {
		return b64, true
	}
	if f.Source() != keel.SourceDataURL {
		return "", false
	}
	header, payload, ok := strings.Cut(f.URL, ",")
	if !ok || !strings.HasSuffix(strings.ToLower(header), ";base64") || len(payload)%4 != 0 {
		return "", false
	}
	n := len(payload)
	for i := 0; i < n; i++ {
		c := payload[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
		case c == '=' && (i == n-1 || (i == n-2 && payload[n-1] == '=')):
		default:
			return "", false
		}
	}
	return payload, true
}

// expand returns body with every placeholder replaced by its content.
func (d *inlineData) expand(body []byte) ([]byte, error) {
	type hit struct{ start, end, item int }
	var hits []hit
	size := len(body)
	marker := []byte(d.nonce)
	for off := 0; ; {
		i := bytes.Index(body[off:], marker)
		if i < 0 {
			break
		}
		start := off + i
		j := start + len(marker)
		k := j
		for k < len(body) && body[k] >= '0' && body[k] <= '9' {
			k++
		}
		n, err := strconv.Atoi(string(body[j:k]))
		if err != nil || n >= len(d.items) {
			return nil, fmt.Errorf("%w: malformed placeholder", errInlineData)
		}
		hits = append(hits, hit{start, k, n})
		size += len(d.items[n].prefix) + d.items[n].encodedLen() - (k - start)
		off = k
	}
	if len(hits) != len(d.items) {
		return nil, fmt.Errorf("%w: %d of %d files placed", errInlineData, len(hits), len(d.items))
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, h := range hits {
		out = append(out, body[prev:h.start]...)
		it := d.items[h.item]
		out = append(out, it.prefix...)
		if it.b64 != "" {
			out = append(out, it.b64...)
		} else {
			n := len(out)
			out = out[:n+base64.StdEncoding.EncodedLen(len(it.data))]
			base64.StdEncoding.Encode(out[n:], it.data)
		}
		prev = h.end
	}
	return append(out, body[prev:]...), nil
}

func (it inlineItem) encodedLen() int {
	if it.b64 != "" {
		return len(it.b64)
	}
	return base64.StdEncoding.EncodedLen(len(it.data))
}

// option completes the request body as it is sent.
func (d *inlineData) option() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if len(d.items) == 0 || req.Body == nil {
			return next(req)
		}
		small, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		body, err := d.expand(small)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		return next(req)
	})
}
