package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
)

// breakingWriter is a ResponseWriter whose writes and flushes fail once
// broken, while the request it answers stays open: what a handler mounted
// behind a proxy or a middleware of the application's own sees when the
// far side fails. net/http's own writer ends the request's context on a
// failed write too, so only such a writer shows whether the stream stops
// the run by itself.
type breakingWriter struct {
	mu     sync.Mutex
	header http.Header
	body   strings.Builder
	broken atomic.Bool
}

var errBroken = errors.New("breakingWriter: the connection broke")

func (w *breakingWriter) Header() http.Header { return w.header }
func (w *breakingWriter) WriteHeader(int)     {}

func (w *breakingWriter) Write(b []byte) (int, error) {
	if w.broken.Load() {
		return 0, errBroken
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(b)
}

func (w *breakingWriter) FlushError() error {
	if w.broken.Load() {
		return errBroken
	}
	return nil
}

func (w *breakingWriter) written() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.String()
}

// A write that fails while the model is still silent (a keep-alive
// comment) stops the run, though the request's context is still live:
// the model's call sees its context end and the handler returns.
func TestStreamFailedWriteStopsTheRun(t *testing.T) {
	model := newBlockingModel()
	mem := memory.NewInMemory()
	a := must(agent.New(agent.Config{ID: "support", Model: model, Memory: mem, Logger: quietLogger()}))
	s := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger(),
		KeepAlive: 10 * time.Millisecond}))
	// Should the run not stop, the request's end lets it go when the test
	// ends, so that nothing is left running.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req := httptest.NewRequestWithContext(ctx, "POST", "/api/agents/support/stream", strings.NewReader(`{"messages":"go"}`))
	req.Header.Set("Content-Type", "application/json")
	w := &breakingWriter{header: http.Header{}}
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.Handler().ServeHTTP(w, req)
	}()
	waitFor(t, "model call", model.started)
	if got := w.written(); !strings.Contains(got, `"type":"step-start"`) {
		t.Fatalf("Got(written before the model call) = %q; want start and step-start", got)
	}
	w.broken.Store(true)
	waitFor(t, "model call to see its context end after a failed write", model.ended)
	waitFor(t, "handler to return", served)
}
