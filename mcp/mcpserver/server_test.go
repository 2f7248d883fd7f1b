package mcpserver_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/mcp/mcpserver"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var quiet = slog.New(slog.DiscardHandler)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// refusingModel answers "Answer N: <the text it read>" and refuses any
// file that is not an image, PDF or text, as a provider does.
func refusingModel() *keeltest.Model {
	n := 0
	m := keeltest.NewModel(keeltest.Reply{Respond: func(req *keel.Request) keeltest.Reply {
		for _, msg := range req.Messages {
			for _, p := range msg.Parts {
				if f, ok := p.(keel.FilePart); ok && !keel.IsReadable(f.MediaType) {
					return keeltest.Reply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + f.MediaType}}
				}
			}
		}
		n++
		last := req.Messages[len(req.Messages)-1]
		return keeltest.Reply{Text: "answer to: " + last.Text()}
	}})
	m.RepeatLast = true
	return m
}

// fixture is a server with one agent, "assistant", on a real SQLite store.
type fixture struct {
	model *keeltest.Model
	store memory.Store
	srv   *mcpserver.Server
}

func newFixture(t *testing.T, model *keeltest.Model) *fixture {
	t.Helper()
	store, err := sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	a, err := agent.New(agent.Config{ID: "assistant", Name: "Assistant", Description: "Answers questions.",
		Model: model, Memory: store, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{Agents: []*agent.Agent{a}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{model: model, store: store, srv: srv}
}

// connectHTTP serves h and connects the SDK's client to it.
func connectHTTP(t *testing.T, h http.Handler, header http.Header) *sdk.ClientSession {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	client := &http.Client{Transport: headerRT{header}}
	sess, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: client}, nil)
	if err != nil {
		t.Fatalf("Got(connect) = %v; want a session", err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

type headerRT struct{ h http.Header }

func (rt headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range rt.h {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectStdio serves s over pipes and connects the SDK's client.
func connectStdio(t *testing.T, s *mcpserver.Server) *sdk.ClientSession {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, sr, sw) }()
	sess, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sess.Close()
		cancel()
		sr.Close()
		if err := <-done; err != nil {
			t.Errorf("Got(ServeStdio) = %v; want nil once the client left", err)
		}
	})
	return sess
}

// ask calls ask_assistant and returns its text, its structured output and
// whether it is an error.
func ask(t *testing.T, sess *sdk.ClientSession, args map[string]any) (string, mcpserver.AskOutput, bool) {
	t.Helper()
	res, err := sess.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_assistant", Arguments: args})
	if err != nil {
		t.Fatalf("Got(call ask_assistant) = %v; want a result", err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var out mcpserver.AskOutput
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
	}
	return text.String(), out, res.IsError
}

func TestAskOverEachTransport(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			f := newFixture(t, refusingModel())
			var sess *sdk.ClientSession
			if transport == "http" {
				sess = connectHTTP(t, handler(t, f.srv, mcpserver.HandlerOptions{}), nil)
			} else {
				sess = connectStdio(t, f.srv)
			}
			tools, err := sess.ListTools(context.Background(), nil)
			if err != nil || len(tools.Tools) != 1 {
				t.Fatalf("Got(tools) = %v, %v; want ask_assistant", tools, err)
			}
			tl := tools.Tools[0]
			schema, _ := json.Marshal(tl.InputSchema)
			if tl.Name != "ask_assistant" || !strings.Contains(tl.Description, "Answers questions.") ||
				!strings.Contains(string(schema), `"required":["message"]`) || tl.OutputSchema == nil {
				t.Errorf("Got(tool) = %s %q %s; want ask_assistant with the agent's description and schemas", tl.Name, tl.Description, schema)
			}

			text, out, isErr := ask(t, sess, map[string]any{"message": "Hello"})
			if isErr || text != "answer to: Hello" || out.Text != text || out.ThreadID == "" || out.ResourceID != "default" || out.RunID == "" {
				t.Fatalf("Got(ask) = %q %+v (error %v); want the answer, a new thread of resource default", text, out, isErr)
			}
			// The thread goes on.
			text, out2, _ := ask(t, sess, map[string]any{"message": "And again", "threadId": out.ThreadID})
			if text != "answer to: And again" || out2.ThreadID != out.ThreadID {
				t.Errorf("Got(second ask) = %q in %s; want an answer in %s", text, out2.ThreadID, out.ThreadID)
			}
			prompts := f.model.Prompts()
			if last := prompts[len(prompts)-1]; len(last) != 3 || last[0].Text() != "Hello" {
				t.Errorf("Got(second prompt) = %d messages; want the first turn, then the new message", len(last))
			}
			page, err := f.store.ListMessages(context.Background(), "default", out.ThreadID, memory.ListMessagesOptions{})
			if err != nil || len(page.Messages) != 4 {
				t.Errorf("Got(stored thread) = %d messages, %v; want both turns", len(page.Messages), err)
			}
		})
	}
}

// A file the model refuses is handled as a user's file is, and the answer
// says how.
func TestAskWithRefusedFile(t *testing.T) {
	f := newFixture(t, refusingModel())
	sess := connectHTTP(t, handler(t, f.srv, mcpserver.HandlerOptions{}), nil)
	sheet := []byte("PK\x03\x04 spreadsheet bytes")
	text, out, isErr := ask(t, sess, map[string]any{"message": "Sum column B", "files": []map[string]any{
		{"name": "../../leads.xlsx", "data": base64.StdEncoding.EncodeToString(sheet)},
		{"data": "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("plain notes"))},
	}})
	if isErr || !strings.HasPrefix(text, "answer to:") {
		t.Fatalf("Got(ask with an xlsx) = %q (error %v); want an answer", text, isErr)
	}
	if len(out.Recoveries) != 1 || out.Recoveries[0].Action != "placeholder" || len(out.Recoveries[0].Files) != 1 ||
		out.Recoveries[0].Files[0].Name != "leads.xlsx" || out.Recoveries[0].Files[0].MediaType != xlsxType {
		t.Errorf("Got(recoveries) = %+v; want leads.xlsx replaced by a placeholder (no sandbox)", out.Recoveries)
	}
	// The stored message keeps both files as sent, the path's directories
	// left out of the name.
	page, err := f.store.ListMessages(context.Background(), "default", out.ThreadID, memory.ListMessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, p := range page.Messages[0].Parts {
		if fp, ok := p.(keel.FilePart); ok {
			kinds = append(kinds, fp.Filename+" "+fp.MediaType)
		}
	}
	if strings.Join(kinds, ", ") != "leads.xlsx "+xlsxType+",  text/plain" {
		t.Errorf("Got(stored files) = %q; want leads.xlsx (type from its name) and the unnamed text", kinds)
	}
}

func TestAskRefusesBadInput(t *testing.T) {
	f := newFixture(t, refusingModel())
	srv, err := mcpserver.New(mcpserver.Options{Agents: agents(t, f), MaxFiles: 2, MaxFileBytes: 10, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	sess := connectHTTP(t, handler(t, srv, mcpserver.HandlerOptions{}), nil)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"empty", map[string]any{"message": "  "}, "message is empty"},
		{"bad base64", map[string]any{"message": "x", "files": []map[string]any{{"name": "a.bin", "data": "!!not base64!!"}}}, "files[0] (a.bin): data is neither base64"},
		{"too large", map[string]any{"message": "x", "files": []map[string]any{{"data": b64("eleven bytes")}}}, "files[0] is 12 bytes, over the 10 byte limit"},
		{"far too large", map[string]any{"message": "x", "files": []map[string]any{{"data": strings.Repeat("A", 4096)}}}, "over the 10 byte limit"},
		{"too many", map[string]any{"message": "x", "files": []map[string]any{{"data": b64("a")}, {"data": b64("b")}, {"data": b64("c")}}}, "3 files: an ask takes at most 2"},
		{"bad media type", map[string]any{"message": "x", "files": []map[string]any{{"data": b64("a"), "mediaType": "text/plain\r\nX-Evil: 1"}}}, "mediaType"},
		{"hostile thread", map[string]any{"message": "x", "threadId": "../../etc"}, `threadId "../../etc"`},
		{"hostile resource", map[string]any{"message": "x", "resourceId": "a b"}, `resourceId "a b"`},
		{"wrong type", map[string]any{"message": 42}, "the input is not what ask_assistant takes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, _, isErr := ask(t, sess, tt.args)
			if !isErr || !strings.Contains(text, tt.want) {
				t.Errorf("Got(ask) = %q (error %v); want a tool error saying %q", text, isErr, tt.want)
			}
		})
	}
	if n := f.model.Calls(); n != 0 {
		t.Errorf("Got(model calls) = %d; want none for input refused", n)
	}
}

func agents(t *testing.T, f *fixture) []*agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{ID: "assistant", Model: f.model, Memory: f.store, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return []*agent.Agent{a}
}

type unavailable struct{}

func (unavailable) Error() string         { return "the token issuer's keys cannot be fetched" }
func (unavailable) AuthUnavailable() bool { return true }

// Authorize decides who calls; a user's asks act for its resource only.
func TestHandlerAuth(t *testing.T) {
	f := newFixture(t, refusingModel())
	h := handler(t, f.srv, mcpserver.HandlerOptions{Authorize: func(r *http.Request) (mcpserver.Caller, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer backend":
			return mcpserver.Caller{}, nil
		case "Bearer alice":
			return mcpserver.Caller{Resource: "alice"}, nil
		case "Bearer bob":
			return mcpserver.Caller{Resource: "bob"}, nil
		case "Bearer down":
			return mcpserver.Caller{}, unavailable{}
		}
		return mcpserver.Caller{}, errors.New("invalid token")
	}})
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, tt := range []struct {
		token string
		code  int
	}{{"", 401}, {"forged", 401}, {"down", 503}} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code {
			t.Errorf("Got(status with token %q) = %d %s; want %d", tt.token, resp.StatusCode, body, tt.code)
		}
	}

	alice := connectHTTP(t, h, http.Header{"Authorization": {"Bearer alice"}})
	_, out, isErr := ask(t, alice, map[string]any{"message": "mine"})
	if isErr || out.ResourceID != "alice" {
		t.Fatalf("Got(alice's ask) = %+v (error %v); want it in resource alice", out, isErr)
	}
	text, _, isErr := ask(t, alice, map[string]any{"message": "theirs", "resourceId": "bob"})
	if !isErr || !strings.Contains(text, "acts for its own resource only") {
		t.Errorf("Got(alice naming bob's resource) = %q (error %v); want a refusal", text, isErr)
	}
	bob := connectHTTP(t, h, http.Header{"Authorization": {"Bearer bob"}})
	text, _, isErr = ask(t, bob, map[string]any{"message": "let me in", "threadId": out.ThreadID})
	if !isErr {
		t.Errorf("Got(bob continuing alice's thread) = %q; want an error", text)
	}
	page, _ := f.store.ListMessages(context.Background(), "alice", out.ThreadID, memory.ListMessagesOptions{})
	if len(page.Messages) != 2 {
		t.Errorf("Got(alice's thread after bob's try) = %d messages; want her 2 alone", len(page.Messages))
	}
	backend := connectHTTP(t, h, http.Header{"Authorization": {"Bearer backend"}})
	if _, out, isErr := ask(t, backend, map[string]any{"message": "for bob", "resourceId": "bob"}); isErr || out.ResourceID != "bob" {
		t.Errorf("Got(backend acting for bob) = %+v (error %v); want resource bob", out, isErr)
	}
}

// A client that cancels its call stops the agent's run.
func TestCancelStopsTheRun(t *testing.T) {
	blocking := &blockingModel{}
	store, _ := sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
	defer store.Close()
	a, _ := agent.New(agent.Config{ID: "assistant", Model: blocking, Memory: store, Logger: quiet})
	srv, _ := mcpserver.New(mcpserver.Options{Agents: []*agent.Agent{a}, Logger: quiet})
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			blocking.reset()
			var sess *sdk.ClientSession
			if transport == "http" {
				sess = connectHTTP(t, handler(t, srv, mcpserver.HandlerOptions{}), nil)
			} else {
				sess = connectStdio(t, srv)
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-blocking.started; cancel() }()
			_, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "ask_assistant", Arguments: map[string]any{"message": "wait"}})
			if err == nil {
				t.Fatalf("Got(cancelled call) = nil; want an error")
			}
			select {
			case err := <-blocking.stopped:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Got(the model call's end) = %v; want context.Canceled", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Got(model call) still running 10s after the client cancelled; want it stopped")
			}
		})
	}
}

// blockingModel's calls wait for their context to end, and report it.
type blockingModel struct {
	started chan struct{}
	stopped chan error
}

func (m *blockingModel) reset() {
	m.started, m.stopped = make(chan struct{}), make(chan error, 1)
}

func (m *blockingModel) Provider() string { return "test" }
func (m *blockingModel) Name() string     { return "blocking" }

func (m *blockingModel) Generate(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	close(m.started)
	<-ctx.Done()
	m.stopped <- ctx.Err()
	return nil, ctx.Err()
}

func (m *blockingModel) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		_, err := m.Generate(ctx, req)
		yield(keel.StreamEvent{}, err)
	}
}

// A request that reached loopback under a host name that is not
// loopback's is refused unless the handler allows that name, or any, as
// behind a reverse proxy on the same machine; loopback's own names always
// pass.
func TestHandlerHostCheck(t *testing.T) {
	f := newFixture(t, refusingModel())
	tests := []struct {
		name  string
		opts  mcpserver.HandlerOptions
		host  string
		allow bool
	}{
		{"another name", mcpserver.HandlerOptions{}, "keel.example.com", false},
		{"any host", mcpserver.HandlerOptions{AllowAnyHost: true}, "keel.example.com", true},
		{"star", mcpserver.HandlerOptions{AllowedHosts: []string{"*"}}, "evil.example", true},
		{"listed", mcpserver.HandlerOptions{AllowedHosts: []string{"keel.example.com"}}, "keel.example.com", true},
		{"listed, other case and a port", mcpserver.HandlerOptions{AllowedHosts: []string{"Keel.Example.com"}}, "KEEL.example.com:8443", true},
		{"listed with a final dot", mcpserver.HandlerOptions{AllowedHosts: []string{"keel.example.com"}}, "keel.example.com.", true},
		{"not listed", mcpserver.HandlerOptions{AllowedHosts: []string{"keel.example.com"}}, "evil.example", false},
		{"a name ending like a listed one", mcpserver.HandlerOptions{AllowedHosts: []string{"example.com"}}, "evil-example.com", false},
		{"below a wildcard", mcpserver.HandlerOptions{AllowedHosts: []string{"*.example.com"}}, "keel.eu.example.com", true},
		{"a wildcard's own name", mcpserver.HandlerOptions{AllowedHosts: []string{"*.example.com"}}, "example.com", false},
		{"an allowed address", mcpserver.HandlerOptions{AllowedHosts: []string{"10.0.0.7"}}, "10.0.0.7:4111", true},
		{"loopback's name", mcpserver.HandlerOptions{AllowedHosts: []string{"keel.example.com"}}, "localhost:4111", true},
		{"loopback's IPv6 address", mcpserver.HandlerOptions{}, "[::1]:4111", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(handler(t, f.srv, tt.opts))
			defer ts.Close()
			req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
			req.Host = tt.host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := http.StatusForbidden
			if tt.allow {
				want = http.StatusOK
			}
			if resp.StatusCode != want || (tt.allow && !strings.Contains(string(body), "ask_assistant")) {
				t.Errorf("Got(tools/list with Host %q, %+v) = %d %s; want %d", tt.host, tt.opts, resp.StatusCode, body, want)
			}
			if !tt.allow && !strings.Contains(string(body), "server.mcp.allowedHosts") {
				t.Errorf("Got(refusal) = %s; want it to name the setting that allows a host", body)
			}
		})
	}
}

// A request that reached an address other than loopback's is not
// checked: DNS rebinding needs a server on the browser's own machine.
func TestHandlerHostCheckOffLoopback(t *testing.T) {
	f := newFixture(t, refusingModel())
	h := handler(t, f.srv, mcpserver.HandlerOptions{})
	for _, tt := range []struct {
		local string
		code  int
	}{{"10.0.0.5:4111", http.StatusOK}, {"127.0.0.1:4111", http.StatusForbidden}} {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		req.Host = "keel.example.com"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		local, err := net.ResolveTCPAddr("tcp", tt.local)
		if err != nil {
			t.Fatal(err)
		}
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.code {
			t.Errorf("Got(request to %s under keel.example.com) = %d %s; want %d", tt.local, rec.Code, rec.Body, tt.code)
		}
	}
}

func TestCheckHost(t *testing.T) {
	tests := []struct {
		host string
		want string // in the error; "" for none
	}{
		{"*", ""},
		{"keel.example.com", ""},
		{"*.example.com", ""},
		{"localhost", ""},
		{"10.0.0.7", ""},
		{"[::1]", ""},
		{"xn--bcher-kva.example", ""},
		{"", "cannot be empty"},
		{"https://keel.example.com", "without a scheme"},
		{"keel.example.com/mcp", "without a path"},
		{"keel.example.com:443", "without a port"},
		{"keel..example.com", "not a host name"},
		{"-keel.example.com", "not a host name"},
		{"keel_1.example.com", "only letters, digits"},
		{"bücher.example", "xn-- form"},
		{"keel.*.example.com", "only letters, digits"},
		{strings.Repeat("a", 64) + ".example.com", "not a host name"},
	}
	for _, tt := range tests {
		err := mcpserver.CheckHost(tt.host)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Got(CheckHost(%q)) = %v; want nil", tt.host, err)
		case tt.want != "" && (!errors.Is(err, mcpserver.ErrHost) || !strings.Contains(fmt.Sprint(err), tt.want)):
			t.Errorf("Got(CheckHost(%q)) = %v; want an ErrHost saying %q", tt.host, err, tt.want)
		}
	}
	// Handler refuses what CheckHost refuses.
	f := newFixture(t, refusingModel())
	if _, err := f.srv.Handler(mcpserver.HandlerOptions{AllowedHosts: []string{"keel.example.com", "https://x"}}); !errors.Is(err, mcpserver.ErrHost) {
		t.Errorf("Got(Handler with a URL for a host) = %v; want ErrHost", err)
	}
}

// handler is s.Handler(opts), which the test needs to succeed.
func handler(t testing.TB, s *mcpserver.Server, opts mcpserver.HandlerOptions) http.Handler {
	t.Helper()
	h, err := s.Handler(opts)
	if err != nil {
		t.Fatalf("Got(Handler) = %v; want a handler", err)
	}
	return h
}
