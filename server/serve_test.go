package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
)

// Cancelling Serve's context lets a running stream finish, within the
// ShutdownGrace given or, for a zero one, DefaultShutdownGrace.
func TestServeGracefulShutdown(t *testing.T) {
	for _, grace := range []time.Duration{5 * time.Second, 0} {
		t.Run(grace.String(), func(t *testing.T) { testServeGracefulShutdown(t, grace) })
	}
}

func testServeGracefulShutdown(t *testing.T, grace time.Duration) {
	release := make(chan struct{})
	model := keeltest.NewModel(keeltest.Reply{Respond: func(*keel.Request) keeltest.Reply {
		<-release
		return keeltest.Reply{Text: "finished anyway"}
	}})
	mem := memory.NewInMemory()
	addr, cancel, served, blocks := serveStream(t, model, mem, grace, `{"messages":"go","memory":{"thread":"t","resource":"r"}}`)
	cancel()
	// Shutdown closes the listener soon after the cancel: poll until a
	// dial is refused, failing if it never is.
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("Got(dial during shutdown) = connected for 10 s; want new connections refused")
		}
		time.Sleep(5 * time.Millisecond) // poll interval
	}
	close(release)
	var rest []string
	for b := range blocks {
		rest = append(rest, b)
	}
	if len(rest) == 0 || rest[len(rest)-1] != "data: [DONE]" || !strings.Contains(strings.Join(rest, "\n"), "finished anyway") {
		t.Errorf("Got(rest of stream) = %q; want the answer and [DONE]", rest)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Got(Serve) = %v; want nil after a shutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Got(Serve) still running; want it to return once the stream ended")
	}
	if got := storedMessages(t, mem, "r", "t"); len(got) != 2 {
		t.Errorf("Got(stored) = %d; want question and answer", len(got))
	}
}

// A stream still running when the grace ends is cut: its connection is
// closed, so its run sees its context end, the client sees the stream end
// without [DONE], and Serve says the shutdown did not finish in time.
func TestServeCutsAStreamPastTheGrace(t *testing.T) {
	model := newBlockingModel()
	_, cancel, served, blocks := serveStream(t, model, memory.NewInMemory(), 100*time.Millisecond, `{"messages":"go"}`)
	waitFor(t, "model call", model.started)
	cancel()
	select {
	case err := <-served:
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "server: shutdown") {
			t.Errorf("Got(Serve) = %v; want server: shutdown, the grace's deadline exceeded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Got(Serve) still running 10 s after its context ended; want it to return after the grace")
	}
	waitFor(t, "model call to see its connection closed", model.ended)
	ended := make(chan struct{})
	var rest []string
	go func() {
		defer close(ended)
		for b := range blocks {
			rest = append(rest, b)
		}
	}()
	waitFor(t, "stream to end", ended)
	if len(rest) > 0 && rest[len(rest)-1] == "data: [DONE]" {
		t.Errorf("Got(rest of stream) = %q; want it cut, without [DONE]", rest)
	}
}

// serveStream serves agent "support" of model and mem on a local port,
// with the given shutdown grace, and opens a stream of body on it. It
// returns the server's address, the cancel of Serve's context, Serve's
// result, and the stream's blocks after its first, "start". The stream's
// body is closed and Serve's context cancelled when the test ends.
func serveStream(t *testing.T, model keel.Model, mem memory.Store, grace time.Duration, body string) (addr string, cancel context.CancelFunc, served <-chan error, blocks <-chan string) {
	t.Helper()
	a := must(agent.New(agent.Config{ID: "support", Model: model, Memory: mem, Logger: quietLogger()}))
	srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger(), ShutdownGrace: grace}))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	result := make(chan error, 1)
	go func() { result <- srv.Serve(ctx, ln) }()
	resp, err := http.Post("http://"+ln.Addr().String()+"/api/agents/support/stream", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	blocks = readBlocks(resp.Body)
	if b := <-blocks; !strings.Contains(b, `"type":"start"`) {
		t.Fatalf("Got(first block) = %q; want start", b)
	}
	return ln.Addr().String(), cancel, result, blocks
}

// Serve's first line says how the server is set up, the store among it.
func TestServeLogsItsSetup(t *testing.T) {
	for _, withMemory := range []bool{true, false} {
		t.Run(fmt.Sprintf("memory=%v", withMemory), func(t *testing.T) {
			var mem memory.Store
			if withMemory {
				mem = memory.NewInMemory()
			}
			a := must(agent.New(agent.Config{ID: "support", Model: keeltest.NewModel(), Logger: quietLogger()}))
			logs := newLogSink()
			srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: logs.logger(), MaxFiles: 3}))
			ln := must(net.Listen("tcp", "127.0.0.1:0"))
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ctx, ln) }()
			line := logs.wait(t, "server: listening", nil)
			cancel()
			if err := <-served; err != nil {
				t.Errorf("Got(Serve) = %v; want nil", err)
			}
			if got := line["memory"]; got.Kind() != slog.KindBool || got.Bool() != withMemory {
				t.Errorf("Got(memory) = %v; want %v", got, withMemory)
			}
			if got := intAttr(line, "max_files"); got != 3 || line["addr"].String() != ln.Addr().String() {
				t.Errorf("Got(listening line) = %v; want max_files 3 and the address %s", line, ln.Addr())
			}
		})
	}
}

// Every request is logged once with its method, path, status, duration
// and size.
func TestRequestLog(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	logs := newLogSink()
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil))
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) {
		c.Logger = slog.New(teeHandler{logger.Handler(), logs})
	}})
	_, body := e.do("GET", "/api/agents/nope", nil)
	// The line is written once the handler returned, which may be just
	// after the client has the answer.
	logs.wait(t, "request", nil)
	mu.Lock()
	defer mu.Unlock()
	var line struct {
		Msg, Method, Path string
		Status            int
		Duration          float64
		Bytes             int
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("Got(log) = %q: %v; want one JSON line", buf.String(), err)
	}
	if line.Msg != "request" || line.Method != "GET" || line.Path != "/api/agents/nope" || line.Status != 404 || line.Bytes != len(body) || line.Duration <= 0 {
		t.Errorf("Got(log) = %+v; want request GET /api/agents/nope 404 %d bytes and a duration", line, len(body))
	}
}

// teeHandler passes each record to two handlers.
type teeHandler struct{ a, b slog.Handler }

func (h teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.a.Enabled(ctx, l) || h.b.Enabled(ctx, l)
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.a.Enabled(ctx, r.Level) {
		_ = h.a.Handle(ctx, r.Clone())
	}
	return h.b.Handle(ctx, r)
}

func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return teeHandler{h.a.WithAttrs(as), h.b.WithAttrs(as)}
}

func (h teeHandler) WithGroup(n string) slog.Handler {
	return teeHandler{h.a.WithGroup(n), h.b.WithGroup(n)}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
