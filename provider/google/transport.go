package google

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/keel-go/keel/provider/internal/inline"
)

// maxErrorBody caps how much of an error response is kept.
const maxErrorBody = 1 << 20

// call is what the transport learns about the one HTTP request of a keel
// call: the SDK's errors keep neither the response's headers nor its raw
// body, which keel's errors carry.
type call struct {
	files *inline.Files

	mu     sync.Mutex
	sent   bool
	url    string
	status int
	header http.Header
	body   []byte // the body of an error response
}

type callKey struct{}

func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// snapshot returns what the transport saw.
func (c *call) snapshot() (sent bool, url string, status int, header http.Header, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent, c.url, c.status, c.header, c.body
}

// captureTransport writes inline files into request bodies and records
// each response's status, headers, and, for an error, its body.
type captureTransport struct {
	base http.RoundTripper // nil means http.DefaultTransport
}

func (t *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	c, _ := req.Context().Value(callKey{}).(*call)
	if c == nil {
		return base.RoundTrip(req)
	}
	if c.files != nil {
		spliced, err := c.files.Request(req)
		if err != nil {
			return nil, err
		}
		req = spliced
	}
	c.mu.Lock()
	c.sent, c.url = true, req.URL.String()
	c.mu.Unlock()
	resp, err := base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 300 && req.URL.Query().Get("alt") == "sse" && isJSON(resp.Header) {
		if err := unstreamed(resp); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status, c.header = resp.StatusCode, resp.Header
	if resp.StatusCode >= 400 {
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		c.body = body
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}

func isJSON(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "application/json"
}

// unstreamed turns the body of a stream request that a server answered
// with plain JSON (one response, or an array of them as Gemini sends
// without alt=sse) into the server-sent events the SDK reads, so that a
// server that does not stream still gets its answer through.
func unstreamed(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var chunks []json.RawMessage
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &chunks); err != nil {
			return err
		}
	} else {
		chunks = []json.RawMessage{trimmed}
	}
	var sse bytes.Buffer
	for _, c := range chunks {
		sse.WriteString("data: ")
		if err := json.Compact(&sse, c); err != nil {
			return err
		}
		sse.WriteString("\n\n")
	}
	resp.Body = io.NopCloser(&sse)
	resp.ContentLength = int64(sse.Len())
	resp.Header.Set("Content-Type", "text/event-stream")
	return nil
}
