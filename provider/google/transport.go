package google

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"

	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/inline"
)

// call is the HTTP side of one keel call: its request's inline files,
// and the exchange that sends them under the model's timeouts and
// records what came back, which the SDK's errors do not keep (neither the
// response's headers nor its raw body).
type call struct {
	files *inline.Files
	x     *exchange.Exchange
}

func (m *Model) newCall(r *request) *call {
	return &call{files: r.files, x: exchange.New(m.timeouts)}
}

type callKey struct{}

func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// captureTransport writes inline files into request bodies and sends each
// request of a keel call through its exchange.
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
	req, err := c.files.Request(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.x.Do(req, base.RoundTrip)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 300 && req.URL.Query().Get("alt") == "sse" && isJSON(resp.Header) {
		if err := unstreamed(resp); err != nil {
			return nil, err
		}
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
