package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/server"
)

const xlsx = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// env is a server under test with one agent "support".
type env struct {
	t     *testing.T
	srv   *httptest.Server
	mem   memory.Store
	token string
}

type envOptions struct {
	model  keel.Model
	mem    memory.Store
	token  string
	limit  int64
	config func(*server.Config)
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	if o.mem == nil {
		o.mem = memory.NewInMemory()
	}
	a, err := agent.New(agent.Config{ID: "support", Name: "Support Agent", Description: "answers questions",
		Instructions: "You are helpful.", Model: o.model, Memory: o.mem, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	cfg := server.Config{Agents: []*agent.Agent{a}, Memory: o.mem, Token: o.token, MaxBodyBytes: o.limit, Logger: quietLogger()}
	if o.config != nil {
		o.config(&cfg)
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return &env{t: t, srv: hs, mem: o.mem, token: o.token}
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// do sends a request and returns the status and body.
func (e *env) do(method, path string, body any, header ...string) (int, []byte) {
	e.t.Helper()
	resp := e.send(method, path, body, header...)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode/100 == 2 && len(b) == 0 {
		e.t.Errorf("Got(%s %s) = %d with an empty body; want a body", method, path, resp.StatusCode)
	}
	return resp.StatusCode, b
}

func (e *env) send(method, path string, body any, header ...string) *http.Response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

// wantStatus fails unless status is want; it returns body decoded.
func wantStatus(t *testing.T, what string, status int, body []byte, want int) map[string]any {
	t.Helper()
	if status != want {
		t.Fatalf("Got(%s) = %d %s; want %d", what, status, body, want)
	}
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("Got(%s) body %q: not a JSON object: %v", what, body, err)
	}
	return v
}

// wantError checks an error answer: the status, an "error" string, and
// substr in it or in the issues.
func wantError(t *testing.T, what string, status int, body []byte, want int, substr string) map[string]any {
	t.Helper()
	v := wantStatus(t, what, status, body, want)
	msg, _ := v["error"].(string)
	if msg == "" || !strings.Contains(string(body), substr) {
		t.Fatalf("Got(%s) = %s; want an error mentioning %q", what, body, substr)
	}
	return v
}

// storedMessages returns the messages of the thread, or none when it does
// not exist.
func storedMessages(t *testing.T, mem memory.Store, resource, thread string) []keel.Message {
	t.Helper()
	page, err := mem.ListMessages(context.Background(), resource, thread, memory.ListMessagesOptions{})
	if err != nil {
		return nil
	}
	return page.Messages
}

// sseEvent is one parsed stream event.
type sseEvent struct {
	Type    string          `json:"type"`
	RunID   string          `json:"runId"`
	From    string          `json:"from"`
	Payload json.RawMessage `json:"payload"`
}

// parseSSE parses a stream strictly: only "data: <one-line JSON>\n\n"
// blocks and ": ping\n\n" comments, ending with "data: [DONE]\n\n" and
// nothing after it.
func parseSSE(t *testing.T, body []byte) (events []sseEvent, pings int) {
	t.Helper()
	rest := body
	done := false
	for len(rest) > 0 {
		if done {
			t.Fatalf("Got(stream) = %q after [DONE]; want nothing", rest)
		}
		block, after, ok := bytes.Cut(rest, []byte("\n\n"))
		if !ok {
			t.Fatalf("Got(stream block) = %q; want it to end with a blank line", rest)
		}
		rest = after
		line := string(block)
		if strings.ContainsAny(line, "\r\n") {
			t.Fatalf("Got(stream block) = %q; want exactly one line", line)
		}
		switch {
		case line == ": ping":
			pings++
		case line == "data: [DONE]":
			done = true
		case strings.HasPrefix(line, "data: {"):
			var ev sseEvent
			dec := json.NewDecoder(strings.NewReader(strings.TrimPrefix(line, "data: ")))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&ev); err != nil {
				t.Fatalf("Got(stream event) = %q: %v; want an envelope {type, runId, from, payload}", line, err)
			}
			if ev.Type == "" || ev.RunID == "" || ev.From != "AGENT" || len(ev.Payload) == 0 {
				t.Fatalf("Got(stream event) = %q; want type, runId, from AGENT and a payload", line)
			}
			events = append(events, ev)
		default:
			t.Fatalf("Got(stream block) = %q; want data: or : ping", line)
		}
	}
	if !done {
		t.Fatalf("Got(stream) ending %q; want data: [DONE]", tail(body))
	}
	return events, pings
}

func tail(b []byte) string {
	if len(b) > 200 {
		b = b[len(b)-200:]
	}
	return string(b)
}

func types(events []sseEvent) string {
	var b strings.Builder
	for i, ev := range events {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(ev.Type)
	}
	return b.String()
}

func payload[T any](t *testing.T, ev sseEvent) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(ev.Payload, &v); err != nil {
		t.Fatalf("Got(%s payload) = %s: %v", ev.Type, ev.Payload, err)
	}
	return v
}

// readLines reads a stream's blocks as they arrive, for tests that act in
// the middle of a stream.
func readBlocks(r io.Reader) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
			if i := bytes.Index(data, []byte("\n\n")); i >= 0 {
				return i + 2, data[:i], nil
			}
			if atEOF && len(data) > 0 {
				return len(data), data, nil
			}
			return 0, nil, nil
		})
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("must: %v", err))
	}
	return v
}

// noRetries gives the agent no default error processors, so a model's
// failure surfaces at once.
func noRetries(c *server.Config) {
	a := c.Agents[0].Config()
	a.DisableDefaultErrorProcessors = true
	c.Agents[0] = must(agent.New(a))
}

var agentNew = agent.New

type processorP = processor.Processor

// retryOnce retries every failed call once, even after output was sent.
type retryOnce struct{}

func (retryOnce) ID() string { return "retry-once" }

func (retryOnce) HandleAPIError(ctx context.Context, e *processor.APIErrorEvent) (processor.Decision, error) {
	if e.Run.RetryCount() > 0 {
		return processor.Decision{}, nil
	}
	return processor.Decision{Retry: true}, nil
}

func (retryOnce) RetriesAfterOutput() bool { return true }
