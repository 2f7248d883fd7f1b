package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

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
	return e.sendCtx(context.Background(), method, path, body, header...)
}

// sendCtx is send with ctx, to end a long response early.
func (e *env) sendCtx(ctx context.Context, method, path string, body any, header ...string) *http.Response {
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
	req, err := http.NewRequestWithContext(ctx, method, e.srv.URL+path, rd)
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

// logSink is a slog.Handler that keeps every record, so that a test can
// wait for the line it expects instead of sleeping.
type logSink struct {
	mu      sync.Mutex
	records []slog.Record
	arrived chan struct{} // closed and replaced at each record
}

func newLogSink() *logSink { return &logSink{arrived: make(chan struct{})} }

func (l *logSink) logger() *slog.Logger { return slog.New(l) }

func (l *logSink) Enabled(context.Context, slog.Level) bool { return true }

func (l *logSink) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	close(l.arrived)
	l.arrived = make(chan struct{})
	return nil
}

func (l *logSink) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logSink) WithGroup(string) slog.Handler      { return l }

// has reports whether a record with message msg came.
func (l *logSink) has(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.records {
		if r.Message == msg {
			return true
		}
	}
	return false
}

// wait returns the first record with message msg for which match (nil:
// any) holds, waiting for it up to 30 s; it fails the test when none
// comes.
func (l *logSink) wait(t *testing.T, msg string, match func(map[string]slog.Value) bool) map[string]slog.Value {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for seen := 0; ; {
		l.mu.Lock()
		recs, arrived := l.records, l.arrived
		l.mu.Unlock()
		for ; seen < len(recs); seen++ {
			if recs[seen].Message != msg {
				continue
			}
			attrs := recordAttrs(recs[seen])
			if match == nil || match(attrs) {
				return attrs
			}
		}
		select {
		case <-arrived:
		case <-deadline:
			t.Fatalf("Got(log) no %q line in 30 s; want one (lines: %s)", msg, l.messages())
			return nil
		}
	}
}

func (l *logSink) messages() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, r := range l.records {
		fmt.Fprintf(&b, "%s %v; ", r.Message, recordAttrs(r))
	}
	return b.String()
}

func recordAttrs(r slog.Record) map[string]slog.Value {
	out := map[string]slog.Value{}
	r.Attrs(func(a slog.Attr) bool {
		out[a.Key] = a.Value.Resolve()
		return true
	})
	return out
}

// blockingModel is a model whose calls wait for their context to end,
// telling started when each call begins and ended when it saw the end.
type blockingModel struct {
	started, ended chan struct{}
}

func newBlockingModel() *blockingModel {
	return &blockingModel{started: make(chan struct{}, 8), ended: make(chan struct{}, 8)}
}

func (m *blockingModel) Provider() string { return "blocking" }
func (m *blockingModel) Name() string     { return "waits" }

func (m *blockingModel) Generate(ctx context.Context, _ *keel.Request) (*keel.Response, error) {
	m.started <- struct{}{}
	<-ctx.Done()
	m.ended <- struct{}{}
	return nil, ctx.Err()
}

func (m *blockingModel) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		_, err := m.Generate(ctx, req)
		yield(keel.StreamEvent{}, err)
	}
}

// waitFor fails the test unless ch delivers within 10 s.
func waitFor(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("Got(%s) nothing in 10 s; want it to happen", what)
	}
}

// intAttr returns the integer attribute key of a log line, -1 when there
// is none.
func intAttr(attrs map[string]slog.Value, key string) int64 {
	v, ok := attrs[key]
	if !ok || v.Kind() != slog.KindInt64 {
		return -1
	}
	return v.Int64()
}
