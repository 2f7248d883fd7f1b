package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"golang.org/x/net/http/httpguts"
)

// Exporter is an sdktrace.SpanExporter that sends spans to an OTLP/HTTP
// collector as protobuf, written straight from the SDK's spans into one
// buffer it reuses. otlptracehttp first builds OTLP's generated messages
// for every span and attribute (a span's 320 B, each attribute's
// key-value, value and one-of wrapper) and then marshals them: about
// half of what a span cost end to end (BENCHMARKS.md, BenchmarkSpan).
//
// It tries again on 429, 502, 503 and 504 and when the connection
// fails, after the Retry-After the collector gives or else a backoff
// (1 s, doubling, jittered, up to 30 s), within the export's timeout and
// its context; any other status is returned at once. A 2xx answer's
// partial success (spans the collector rejected) is not read: OTLP
// says not to retry them, and otlptracehttp only logs it.
type Exporter struct {
	url     string
	header  http.Header
	timeout time.Duration
	gzip    bool
	backoff time.Duration
	client  *http.Client

	stop     context.Context // cancelled by Shutdown, so that an export in flight ends
	stopNow  context.CancelFunc
	shutdown sync.Once

	mu     sync.Mutex // the buffers, between ExportSpans calls
	body   []byte
	zbuf   bytes.Buffer
	zw     *gzip.Writer
	groups []spanGroup
}

var _ sdktrace.SpanExporter = (*Exporter)(nil)

// Limits of what the exporter reads and waits for.
const (
	maxBackoff      = 30 * time.Second
	maxRetryAfter   = time.Hour // past it, Retry-After is read as an hour: the export's timeout ends it first anyway
	maxErrorBody    = 1 << 10   // of an error answer, kept for the error's text
	maxResponseBody = 64 << 10  // read of any answer, so that the connection can be reused
)

// NewExporter returns an exporter sending as cfg says; [ExporterConfigFromEnv]
// reads it from the standard variables.
func NewExporter(cfg ExporterConfig) (*Exporter, error) {
	if _, err := parseEndpoint("URL", cfg.URL); err != nil {
		return nil, fmt.Errorf("telemetry: exporter URL %q: want an http:// or https:// URL with a host", cfg.URL)
	}
	for k, vs := range cfg.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, fmt.Errorf("telemetry: exporter header %q: not an HTTP header name", k)
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, fmt.Errorf("telemetry: exporter header %s: its value holds a control character (such as CR or LF)", k)
			}
		}
	}
	e := &Exporter{url: cfg.URL, header: cfg.Header.Clone(), timeout: cfg.Timeout, gzip: cfg.Gzip, backoff: cfg.Backoff}
	if e.timeout <= 0 {
		e.timeout = defaultOTLPTimeout
	}
	if e.backoff <= 0 {
		e.backoff = time.Second
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.TLS != nil {
		tr.TLSClientConfig = cfg.TLS.Clone()
	}
	// No client timeout: the export's context bounds each try and the
	// waits between them.
	e.client = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	e.stop, e.stopNow = context.WithCancel(context.Background())
	if e.gzip {
		e.zw = gzip.NewWriter(io.Discard)
	}
	return e, nil
}

// ErrExporterShutdown is what ExportSpans returns after Shutdown.
var ErrExporterShutdown = errors.New("telemetry: OTLP exporter is shut down")

// ExportSpans sends spans in one OTLP/HTTP request, trying again as the
// type's documentation says. The SDK's span processors call it from one
// goroutine at a time; calls from several wait for each other.
func (e *Exporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if e.stop.Err() != nil {
		return ErrExporterShutdown
	}
	if len(spans) == 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.body, e.groups = appendRequest(e.body[:0], spans, e.groups)
	body := e.body
	if e.gzip {
		e.zbuf.Reset()
		e.zw.Reset(&e.zbuf)
		if _, err := e.zw.Write(body); err != nil {
			return fmt.Errorf("telemetry: OTLP export: gzip: %w", err)
		}
		if err := e.zw.Close(); err != nil {
			return fmt.Errorf("telemetry: OTLP export: gzip: %w", err)
		}
		body = e.zbuf.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	stopped := context.AfterFunc(e.stop, cancel)
	defer stopped()
	return e.send(ctx, body, len(spans))
}

// retryable is a failed try that may succeed later; after is the wait
// the collector asked for (0: none said).
type retryable struct {
	err   error
	after time.Duration
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

func (e *Exporter) send(ctx context.Context, body []byte, n int) error {
	wait := e.backoff
	for try := 1; ; try++ {
		err := e.post(ctx, body)
		if err == nil {
			return nil
		}
		var r *retryable
		if !errors.As(err, &r) {
			return fmt.Errorf("telemetry: OTLP export of %d spans to %s: %w", n, e.url, err)
		}
		d := r.after
		if d == 0 {
			d = wait/2 + rand.N(wait/2+1) // jittered, so that exporters that failed together do not retry together
			wait = min(2*wait, maxBackoff)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return fmt.Errorf("telemetry: OTLP export of %d spans to %s: gave up after %d tries, the next would come after the timeout: %w",
				n, e.url, try, r.err)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("telemetry: OTLP export of %d spans to %s: %w after %d tries: %w", n, e.url, e.stopCause(ctx), try, r.err)
		case <-t.C:
		}
	}
}

// stopCause is why ctx ended: the exporter's shutdown, or the caller's
// context or the export's timeout.
func (e *Exporter) stopCause(ctx context.Context) error {
	if e.stop.Err() != nil {
		return ErrExporterShutdown
	}
	return ctx.Err()
}

// post makes one try. A failure worth another is a *retryable.
func (e *Exporter) post(ctx context.Context, body []byte) error {
	sb := &sharedBody{b: body}
	defer sb.close()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, sb.reader())
	if err != nil {
		return err
	}
	req.ContentLength = int64(len(body))
	// The client sends the body again itself when a kept-alive
	// connection turns out closed before the request went out.
	req.GetBody = func() (io.ReadCloser, error) { return sb.reader(), nil }
	for k, vs := range e.header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "keel")
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", e.stopCause(ctx), err)
		}
		var cert *tls.CertificateVerificationError
		if errors.As(err, &cert) { // it will not verify the next time either
			return err
		}
		return &retryable{err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		_, _ = io.CopyN(io.Discard, resp.Body, maxResponseBody)
		return nil
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_, _ = io.CopyN(io.Discard, resp.Body, maxResponseBody)
	err = fmt.Errorf("%s: %q", resp.Status, strings.TrimSpace(string(msg)))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return &retryable{err: err, after: retryAfter(resp.Header.Get("Retry-After"))}
	}
	return err
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
		return time.Duration(min(s, int64(maxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// sharedBody is the export's buffer, readable until the try is over:
// the HTTP client may go on reading a request's body after it returned
// (a collector that answered before reading it all), and by then the
// buffer may hold the next export.
type sharedBody struct {
	mu sync.Mutex
	b  []byte
}

func (s *sharedBody) reader() io.ReadCloser { return &bodyReader{s: s} }

func (s *sharedBody) close() {
	s.mu.Lock()
	s.b = nil
	s.mu.Unlock()
}

var errBodyGone = errors.New("telemetry: OTLP export: request body read after its try ended")

type bodyReader struct {
	s   *sharedBody
	off int
}

func (r *bodyReader) Read(p []byte) (int, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.s.b == nil {
		return 0, errBodyGone
	}
	if r.off >= len(r.s.b) {
		return 0, io.EOF
	}
	n := copy(p, r.s.b[r.off:])
	r.off += n
	return n, nil
}

func (*bodyReader) Close() error { return nil }

// Shutdown makes later exports fail and ends one in flight; the batch
// span processor exports what it holds before it calls Shutdown.
func (e *Exporter) Shutdown(ctx context.Context) error {
	e.shutdown.Do(func() {
		e.stopNow()
		e.client.CloseIdleConnections()
	})
	return ctx.Err()
}
