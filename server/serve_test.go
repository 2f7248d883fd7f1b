package server_test

import (
	"bytes"
	"context"
	"encoding/json"
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

// Cancelling Serve's context lets a running stream finish.
func TestServeGracefulShutdown(t *testing.T) {
	release := make(chan struct{})
	model := keeltest.NewModel(keeltest.Reply{Respond: func(*keel.Request) keeltest.Reply {
		<-release
		return keeltest.Reply{Text: "finished anyway"}
	}})
	mem := memory.NewInMemory()
	a := must(agent.New(agent.Config{ID: "support", Model: model, Memory: mem, Logger: quietLogger()}))
	srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger(), ShutdownGrace: 5 * time.Second}))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	resp, err := http.Post("http://"+ln.Addr().String()+"/api/agents/support/stream", "application/json",
		strings.NewReader(`{"messages":"go","memory":{"thread":"t","resource":"r"}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	blocks := readBlocks(resp.Body)
	if b := <-blocks; !strings.Contains(b, `"type":"start"`) {
		t.Fatalf("Got(first block) = %q; want start", b)
	}
	cancel()
	time.Sleep(50 * time.Millisecond)
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Errorf("Got(dial during shutdown) = connected; want new connections refused")
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

// Every request is logged once with its method, path, status, duration
// and size.
func TestRequestLog(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil))
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.Logger = logger }})
	_, body := e.do("GET", "/api/agents/nope", nil)
	// The line is written once the handler returned, which may be just
	// after the client has the answer.
	for i := 0; i < 100; i++ {
		mu.Lock()
		n := buf.Len()
		mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
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

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
