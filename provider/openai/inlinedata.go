package openai

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

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
	data   []byte
}

func newInlineData() *inlineData {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &inlineData{nonce: "keel-inline-" + hex.EncodeToString(b[:]) + "-"}
}

// dataURL returns the placeholder of a data: URL holding data.
func (d *inlineData) dataURL(mediaType string, data []byte) string {
	return d.add("data:"+mediaType+";base64,", data)
}

// base64 returns the placeholder of data as plain base64.
func (d *inlineData) base64(data []byte) string { return d.add("", data) }

func (d *inlineData) add(prefix string, data []byte) string {
	quoted, _ := json.Marshal(prefix)
	d.items = append(d.items, inlineItem{prefix: string(quoted[1 : len(quoted)-1]), data: data})
	return d.nonce + strconv.Itoa(len(d.items)-1)
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
			return nil, fmt.Errorf("openai: send: malformed inline data placeholder")
		}
		hits = append(hits, hit{start, k, n})
		it := d.items[n]
		size += len(it.prefix) + base64.StdEncoding.EncodedLen(len(it.data)) - (k - start)
		off = k
	}
	if len(hits) != len(d.items) {
		return nil, fmt.Errorf("openai: send: %d of %d inline files placed", len(hits), len(d.items))
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, h := range hits {
		out = append(out, body[prev:h.start]...)
		it := d.items[h.item]
		out = append(out, it.prefix...)
		n := len(out)
		out = out[:n+base64.StdEncoding.EncodedLen(len(it.data))]
		base64.StdEncoding.Encode(out[n:], it.data)
		prev = h.end
	}
	return append(out, body[prev:]...), nil
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
