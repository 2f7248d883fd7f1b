package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
)

// dialRaw opens a plain TCP connection to the test server, for clients
// that behave as net/http's does not: sending a whole body before reading,
// or sending it slowly. The connection fails the test's reads and writes
// after 60 s rather than hang.
func dialRaw(t *testing.T, e *env) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	return c
}

// readResponse reads one response from c and returns its status, headers
// (with a "Connection: close" the client's parser takes out set back) and
// body.
func readResponse(t *testing.T, c net.Conn) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("Got(response) = %v; want one", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Got(response body) = %v; want all of it", err)
	}
	if resp.Close {
		resp.Header.Set("Connection", "close")
	}
	return resp.StatusCode, resp.Header, b
}

// A client that sends all of a 60 MiB body before it reads gets the 413
// of the default 50 MiB limit, as JSON: the server drains the body rather
// than reset the connection under it. net/http's client, which reads while
// it sends, gets it too. Nothing runs.
func TestOversizedBodyIsReadableByTheClient(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	e := newEnv(t, envOptions{model: model})
	const size = 60 << 20
	chunk := bytes.Repeat([]byte(" "), 1<<20)

	c := dialRaw(t, e)
	fmt.Fprintf(c, "POST /api/agents/support/generate HTTP/1.1\r\nHost: keel\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", size)
	for i := 0; i < size/len(chunk); i++ {
		if _, err := c.Write(chunk); err != nil {
			t.Fatalf("Got(write of MiB %d of the body) = %v; want the server to take all of it", i, err)
		}
	}
	status, h, body := readResponse(t, c)
	wantError(t, "60 MiB body sent first", status, body, http.StatusRequestEntityTooLarge, "52428800 byte limit")
	if got := h.Get("Content-Type"); got != "application/json" {
		t.Errorf("Got(Content-Type) = %q; want application/json", got)
	}

	req := must(http.NewRequest("POST", e.srv.URL+"/api/agents/support/generate", io.MultiReader(
		strings.NewReader(`{"messages":"`), io.LimitReader(repeatReader(' '), size), strings.NewReader(`"}`))))
	req.ContentLength = size + 15
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("Got(net/http client's 60 MiB post) = %v; want the 413", err)
	}
	b := must(io.ReadAll(resp.Body))
	resp.Body.Close()
	wantError(t, "net/http client's 60 MiB body", resp.StatusCode, b, http.StatusRequestEntityTooLarge, "limit")
	if model.Calls() != 0 {
		t.Errorf("Got(model calls) = %d; want 0", model.Calls())
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// A client that waits for "100 Continue" before sending an oversized body
// gets the 413 at once, and is never asked for the body.
func TestOversizedBodyWithExpectContinue(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.BodyGrace = time.Minute }})
	c := dialRaw(t, e)
	fmt.Fprintf(c, "POST /api/agents/support/generate HTTP/1.1\r\nHost: keel\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", 60<<20)
	status, h, body := readResponse(t, c)
	wantError(t, "oversized body with Expect: 100-continue", status, body, http.StatusRequestEntityTooLarge, "limit")
	if got := h.Get("Connection"); got != "close" {
		t.Errorf("Got(Connection) = %q; want close", got)
	}
	// Nor is the connection held waiting for it: the server closes it
	// long before the body's minute of grace.
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if n, err := io.Copy(io.Discard, c); err != nil && !isConnReset(err) {
		t.Errorf("Got(read after the 413) = %d bytes, %v; want the connection closed at once", n, err)
	}
}

// Without a valid token, a request is answered 401 before any of its
// body is read: here the body never comes, and the answer does not wait
// for it (the body's grace is a minute, the test's reads give up first
// only if the server waited).
func TestUnauthorizedBeforeTheBody(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(), token: "s3cret", config: func(c *server.Config) { c.BodyGrace = time.Minute }})
	for _, auth := range []string{"", "Authorization: Bearer wrong\r\n"} {
		c := dialRaw(t, e)
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(c, "POST /api/agents/support/generate HTTP/1.1\r\nHost: keel\r\n%sContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", auth)
		status, h, body := readResponse(t, c)
		wantError(t, fmt.Sprintf("generate with %q and no body yet", auth), status, body, http.StatusUnauthorized, "token")
		// The body is never read, so the connection cannot carry another
		// request: the answer says it closes.
		if got := h.Get("Connection"); got != "close" {
			t.Errorf("Got(Connection of the 401 with %q, a body unread) = %q; want close", auth, got)
		}
	}
	// A request without a body leaves nothing unread: its connection
	// stays open for the next request.
	c := dialRaw(t, e)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "GET /api/agents HTTP/1.1\r\nHost: keel\r\n\r\n")
	status, h, body := readResponse(t, c)
	wantError(t, "agents without a token", status, body, http.StatusUnauthorized, "token")
	if got := h.Get("Connection"); got == "close" {
		t.Errorf("Got(Connection of the 401 to a GET) = %q; want the connection kept", got)
	}
}

// A body that arrives at a byte every 20 ms, under a rule of 1,000 bytes
// a second after 100 ms, is answered 408 and its connection closed.
func TestSlowBodyIsDropped(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	logs := newLogSink()
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		c.BodyGrace, c.MinBodyRate, c.Logger = 100*time.Millisecond, 1000, logs.logger()
	}})
	c := dialRaw(t, e)
	fmt.Fprintf(c, "POST /api/agents/support/generate HTTP/1.1\r\nHost: keel\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n")
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		// The slow client: its pace is what is tested, not a wait.
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	status, h, body := readResponse(t, c)
	wantError(t, "body at 50 bytes a second", status, body, http.StatusRequestTimeout, "too slowly")
	if got := h.Get("Connection"); got != "close" {
		t.Errorf("Got(Connection) = %q; want close", got)
	}
	// The server closes its end: a read sees the end of the stream.
	if n, err := io.Copy(io.Discard, c); err != nil && !isConnReset(err) {
		t.Errorf("Got(read after the 408) = %d bytes, %v; want the connection closed", n, err)
	}
	line := logs.wait(t, "request", nil)
	if got := intAttr(line, "status"); got != http.StatusRequestTimeout {
		t.Errorf("Got(logged status) = %d; want 408", got)
	}
	if model.Calls() != 0 {
		t.Errorf("Got(model calls) = %d; want 0", model.Calls())
	}
}

func isConnReset(err error) bool {
	return strings.Contains(err.Error(), "connection reset")
}

// A body slower than the grace allows in total, but above the minimum
// rate, is read whole.
func TestSteadySlowBodyIsRead(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "read it"}), config: func(c *server.Config) {
		c.BodyGrace, c.MinBodyRate = 100*time.Millisecond, 100
	}})
	body := []byte(`{"messages":"` + strings.Repeat("a", 885) + `"}`)
	c := dialRaw(t, e)
	fmt.Fprintf(c, "POST /api/agents/support/generate HTTP/1.1\r\nHost: keel\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	tick := time.NewTicker(30 * time.Millisecond)
	defer tick.Stop()
	// 100 bytes every 30 ms: over 0.2 s in all, well above 100 bytes a
	// second.
	for len(body) > 0 {
		<-tick.C
		n := min(100, len(body))
		if _, err := c.Write(body[:n]); err != nil {
			t.Fatal(err)
		}
		body = body[n:]
	}
	status, _, resp := readResponse(t, c)
	if v := wantStatus(t, "steady slow body", status, resp, 200); v["text"] != "read it" {
		t.Errorf("Got(text) = %v; want read it", v["text"])
	}
}

// A zero BodyGrace is DefaultBodyGrace, not none: a body that pauses
// for 200 ms after its first bytes, far under the minimum rate then (with
// no grace, 10 bytes at 1,000 a second allow 10 ms), is still within the
// grace and read whole.
func TestZeroBodyGraceIsTheDefault(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "read it"}), config: func(c *server.Config) {
		c.BodyGrace, c.MinBodyRate = 0, 1000
	}})
	generateAfterAPause(t, e, "body after a pause")
}

// generateAfterAPause sends e a generate whose body pauses for 200 ms
// after its first 10 bytes, and fails unless the model's "read it" is
// the answer.
func generateAfterAPause(t *testing.T, e *env, what string) {
	t.Helper()
	body := []byte(`{"messages":"after a pause"}`)
	c := dialRaw(t, e)
	fmt.Fprintf(c, "POST /api/agents/support/generate HTTP/1.1\r\nHost: keel\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	if _, err := c.Write(body[:10]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the pause is what is tested
	if _, err := c.Write(body[10:]); err != nil {
		t.Fatal(err)
	}
	status, _, resp := readResponse(t, c)
	if v := wantStatus(t, what, status, resp, 200); v["text"] != "read it" {
		t.Errorf("Got(%s text) = %v; want read it", what, v["text"])
	}
}

// serveReal runs the server with Serve, so that the http.Server it makes,
// with its timeouts, is what the test meets.
func serveReal(t *testing.T, cfg server.Config) string {
	t.Helper()
	srv := must(server.New(cfg))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Got(Serve) = %v; want nil", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// A stream outlives the write timeout many times over: each write has its
// own deadline, so only a write that cannot go out is cut.
func TestLongStreamOutlivesWriteTimeout(t *testing.T) {
	release := make(chan struct{})
	model := keeltest.NewModel(keeltest.Reply{Respond: func(*keel.Request) keeltest.Reply {
		<-release
		return keeltest.Reply{Text: "still here"}
	}})
	mem := memory.NewInMemory()
	a := must(agent.New(agent.Config{ID: "support", Model: model, Memory: mem, Logger: quietLogger()}))
	const writeTimeout = 100 * time.Millisecond
	url := serveReal(t, server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger(),
		WriteTimeout: writeTimeout, KeepAlive: 20 * time.Millisecond, ShutdownGrace: 5 * time.Second})
	// Should the stream be cut, the model still waits: the client gives up
	// after 30 s so that the test fails rather than hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := must(http.NewRequestWithContext(ctx, "POST", url+"/api/agents/support/stream", strings.NewReader(`{"messages":"go"}`)))
	resp := must(http.DefaultClient.Do(req))
	defer resp.Body.Close()
	start := time.Now()
	var body []byte
	released := false
	defer func() {
		if !released {
			close(release) // let the run end whatever happened
		}
	}()
	for b := range readBlocks(resp.Body) {
		// The stream is held open for five write timeouts before the
		// model answers.
		if !released && b == ": ping" && time.Since(start) > 5*writeTimeout {
			close(release)
			released = true
		}
		body = append(append(body, b...), "\n\n"...)
	}
	if !released {
		t.Fatalf("Got(stream) ended after %s: %q; want it kept open past five write timeouts", time.Since(start), body)
	}
	events, _ := parseSSE(t, body)
	if got := types(events); !strings.HasSuffix(got, "text-end step-finish finish") || !bytes.Contains(body, []byte("still here")) {
		t.Errorf("Got(events) = %s; want the answer after the wait", got)
	}
}

// A client that stops reading a stream is dropped once a write has waited
// for the write timeout, even in an http.Server without timeouts of its
// own (the test server has none); the log says the client closed the
// request.
func TestStalledStreamClientIsDropped(t *testing.T) {
	chunks := make([]string, 8)
	for i := range chunks {
		chunks[i] = strings.Repeat("x", 1<<20)
	}
	model := keeltest.NewModel(keeltest.Reply{Text: strings.Join(chunks, ""), Chunks: chunks})
	logs := newLogSink()
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		c.WriteTimeout, c.Logger = 200*time.Millisecond, logs.logger()
	}})
	// A small receive buffer: fewer bytes fill the connection.
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c := must(d.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://")))
	defer c.Close()
	body := `{"messages":"flood me","memory":{"thread":"t","resource":"r"}}`
	fmt.Fprintf(c, "POST /api/agents/support/stream HTTP/1.1\r\nHost: keel\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	// Nothing is read: 8 MiB of events fill the socket buffers.
	line := logs.wait(t, "request", nil)
	if got := intAttr(line, "status"); got != server.StatusClientClosed || intAttr(line, "status_sent") != 200 {
		t.Errorf("Got(logged status) = %v; want %d after a 200 was sent", line, server.StatusClientClosed)
	}
	if got := storedMessages(t, e.mem, "r", "t"); len(got) != 1 {
		t.Errorf("Got(stored) = %d messages; want only the question, the run being cut", len(got))
	}
}

// Logs: a generate whose client goes away is logged as such, never as a
// 200.
func TestCancelledGenerateIsLoggedAsClientClosed(t *testing.T) {
	model := newBlockingModel()
	logs := newLogSink()
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) { c.Logger = logs.logger() }})
	ctx, cancel := context.WithCancel(context.Background())
	req := must(http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/api/agents/support/generate", strings.NewReader(`{"messages":"go"}`)))
	errc := make(chan error, 1)
	go func() {
		resp, err := e.srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	waitFor(t, "model call", model.started)
	cancel()
	if err := <-errc; err == nil {
		t.Errorf("Got(cancelled request) = no error; want the cancellation")
	}
	line := logs.wait(t, "request", nil)
	if got := intAttr(line, "status"); got != server.StatusClientClosed || line["error"].String() != "client closed request" {
		t.Errorf("Got(log) = %v; want status %d, client closed request", line, server.StatusClientClosed)
	}
}

// The media type of a file must be one a provider, a store and a client
// can take back safely; a CRLF in it is refused with the field named.
func TestFileMediaTypeIsChecked(t *testing.T) {
	file := func(mediaTypeJSON string) string {
		return `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[{"type":"text","text":"x"},` +
			`{"type":"file","data":"JVBERg==",` + mediaTypeJSON + `,"filename":"a.bin"}]}]}`
	}
	tests := []struct {
		name, body, field string
	}{
		{"CRLF header injection", file(`"mediaType":"application/vnd.ms-excel\r\nX-Injected: 1"`), "messages[0].content[1].mediaType"},
		{"old name with a LF", file(`"mimeType":"text/csv\nX: 1"`), "messages[0].content[1].mimeType"},
		{"a tab", file(`"mediaType":"text/csv;\tcharset=utf-8"`), "messages[0].content[1].mediaType"},
		{"no subtype", file(`"mediaType":"application"`), "messages[0].content[1].mediaType"},
		{"a wildcard", file(`"mediaType":"application/*"`), "messages[0].content[1].mediaType"},
		{"over 255 bytes", file(`"mediaType":"application/` + strings.Repeat("x", 250) + `"`), "messages[0].content[1].mediaType"},
		{"bad parameter", file(`"mediaType":"text/csv; charset"`), "messages[0].content[1].mediaType"},
		{"data URL type with a CR", `{"messages":[{"role":"user","content":[{"type":"file","data":"data:text/plain\rX: 1;base64,YQ==","mediaType":"text/plain"}]}]}`,
			"messages[0].content[0].data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := keeltest.NewModel(keeltest.Reply{Text: "never"})
			e := newEnv(t, envOptions{model: model})
			status, body := e.do("POST", "/api/agents/support/generate", tt.body)
			v := wantError(t, tt.name, status, body, http.StatusBadRequest, "media type")
			issues, _ := v["issues"].([]any)
			if len(issues) != 1 || issues[0].(map[string]any)["field"] != tt.field {
				t.Errorf("Got(issues) = %v; want one for %s", issues, tt.field)
			}
			if bytes.ContainsAny(body, "\r\n\t") {
				t.Errorf("Got(answer) = %q; want no control character echoed", body)
			}
			if model.Calls() != 0 || len(storedMessages(t, e.mem, "r", "t")) != 0 {
				t.Errorf("Got(model calls, stored) = %d, %d; want nothing run or stored", model.Calls(), len(storedMessages(t, e.mem, "r", "t")))
			}
		})
	}
	// Parameters and upper case are fine.
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "ok"})})
	status, body := e.do("POST", "/api/agents/support/generate", file(`"mediaType":"Text/CSV; charset=utf-8"`))
	wantStatus(t, "media type with a parameter", status, body, 200)
}

// At most Config.MaxFiles files in one request, 100 by default.
func TestFileCountIsLimited(t *testing.T) {
	body := func(n int) string {
		parts := []any{map[string]any{"type": "text", "text": "files"}}
		for i := range n {
			parts = append(parts, map[string]any{"type": "file", "data": "YQ==", "mediaType": "text/plain", "filename": fmt.Sprintf("f%d.txt", i)})
		}
		return string(must(json.Marshal(map[string]any{"memory": map[string]any{"thread": "t", "resource": "r"},
			"messages": []any{map[string]any{"role": "user", "content": parts}}})))
	}
	tests := []struct {
		name     string
		maxFiles int
		files    int
		status   int
	}{
		{"100 under the default", 0, 100, 200},
		{"101 under the default", 0, 101, 400},
		{"3 under a limit of 2", 2, 3, 400},
		{"150 without a limit", -1, 150, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := keeltest.NewModel(keeltest.Reply{Text: "ok"})
			e := newEnv(t, envOptions{model: model, config: func(c *server.Config) { c.MaxFiles = tt.maxFiles }})
			status, resp := e.do("POST", "/api/agents/support/generate", body(tt.files))
			if tt.status != 200 {
				wantError(t, tt.name, status, resp, tt.status, "at most")
				if model.Calls() != 0 || len(storedMessages(t, e.mem, "r", "t")) != 0 {
					t.Errorf("Got(model calls) = %d; want nothing run or stored", model.Calls())
				}
				return
			}
			wantStatus(t, tt.name, status, resp, 200)
			if got := len(storedMessages(t, e.mem, "r", "t")[0].Parts); got != tt.files+1 {
				t.Errorf("Got(stored parts) = %d; want %d", got, tt.files+1)
			}
		})
	}
}
