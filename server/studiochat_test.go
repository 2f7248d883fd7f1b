package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/tool"
)

// subscription is an open POST .../threads/subscribe, read block by block.
type subscription struct {
	t      *testing.T
	blocks <-chan string
	cancel context.CancelFunc
}

func (e *env) subscribe(t *testing.T, body string, header ...string) *subscription {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp := e.sendCtx(ctx, "POST", "/api/agents/support/threads/subscribe", body, header...)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		b := new(bytes.Buffer)
		_, _ = b.ReadFrom(resp.Body)
		resp.Body.Close()
		t.Fatalf("Got(subscribe %s) = %d %s %s; want 200 text/event-stream", body, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	s := &subscription{t: t, blocks: readBlocks(resp.Body), cancel: func() { cancel(); resp.Body.Close() }}
	t.Cleanup(s.cancel)
	if got := s.next(); got != ": connected" {
		t.Fatalf("Got(first block of the subscription) = %q; want \": connected\"", got)
	}
	return s
}

// next is the next block, pings skipped; the test fails after 10 s.
func (s *subscription) next() string {
	s.t.Helper()
	for {
		select {
		case b, ok := <-s.blocks:
			if !ok {
				s.t.Fatal("Got(subscription) closed; want more events")
			}
			if b != ": ping" {
				return b
			}
		case <-time.After(10 * time.Second):
			s.t.Fatal("Got(subscription) nothing in 10 s; want an event")
		}
	}
}

// turn reads one turn's chunks, up to its finish.
func (s *subscription) turn() []map[string]any {
	s.t.Helper()
	var out []map[string]any
	for {
		b := s.next()
		var v map[string]any
		if !strings.HasPrefix(b, "data: ") || json.Unmarshal([]byte(strings.TrimPrefix(b, "data: ")), &v) != nil {
			s.t.Fatalf("Got(subscription block) = %q; want data: <JSON>", b)
		}
		out = append(out, v)
		if v["type"] == "finish" {
			return out
		}
	}
}

func chunkTypes(chunks []map[string]any) string {
	var names []string
	for _, c := range chunks {
		names = append(names, c["type"].(string))
	}
	return strings.Join(names, " ")
}

func chunkText(chunks []map[string]any) string {
	var b strings.Builder
	for _, c := range chunks {
		if c["type"] == "text-delta" {
			b.WriteString(c["payload"].(map[string]any)["text"].(string))
		}
	}
	return b.String()
}

const studioSend = `{"message":{"contents":%q,"metadata":{"clientMessageId":"client-1"}},"resourceId":"support","threadId":"t1",` +
	`"ifIdle":{"streamOptions":{"maxSteps":15,"modelSettings":{"maxRetries":2},"requestContext":{}}}}`

func sendBody(text string) string {
	return strings.Replace(studioSend, "%q", string(must(json.Marshal(text))), 1)
}

// A message sent reaches every subscriber of the thread as Mastra's
// chunks, with the user's message after the start, and is stored.
func TestStudioSendMessage(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "studio answer 4471"})})
	subs := []*subscription{e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`), e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)}
	status, body := e.do("POST", "/api/agents/support/send-message", sendBody("hello from studio"))
	v := wantStatus(t, "send-message", status, body, http.StatusOK)
	sig, _ := v["signal"].(map[string]any)
	if v["accepted"] != true || v["runId"] == "" || sig["contents"] != "hello from studio" || sig["type"] != "user" || sig["id"] == "" ||
		sig["__isCreatedSignal"] != true {
		t.Fatalf("Got(send-message) = %s; want {accepted:true, runId, signal} echoing the message", body)
	}
	for i, s := range subs {
		chunks := s.turn()
		want := "start data-user-message step-start text-start text-delta text-delta text-delta text-end step-finish finish"
		if got := chunkTypes(chunks); got != want {
			t.Fatalf("Got(subscriber %d chunks) = %s; want %s", i, got, want)
		}
		if got := chunkText(chunks); got != "studio answer 4471" {
			t.Errorf("Got(subscriber %d text) = %q; want the model's answer", i, got)
		}
		um := chunks[1]
		data, _ := um["data"].(map[string]any)
		if um["transient"] != true || um["runId"] != v["runId"] || data["id"] != sig["id"] || data["contents"] != "hello from studio" {
			t.Errorf("Got(data-user-message) = %v; want the signal, transient, of run %v", um, v["runId"])
		}
		for _, c := range chunks {
			if c["type"] != "data-user-message" && (c["runId"] != v["runId"] || c["from"] != "AGENT") {
				t.Errorf("Got(chunk) = %v; want runId %v from AGENT", c, v["runId"])
			}
		}
	}
	msgs := storedMessages(t, e.mem, "support", "t1")
	if len(msgs) != 2 || msgs[0].ID != sig["id"] || msgs[0].Text() != "hello from studio" || msgs[1].Text() != "studio answer 4471" {
		t.Errorf("Got(stored) = %+v; want the message under the signal's id, then the answer", msgs)
	}
}

// gatedModel answers each call once release delivers, telling started
// when each call begins.
type gatedModel struct {
	started chan []keel.Message
	release chan string
}

func (m *gatedModel) Provider() string { return "gated" }
func (m *gatedModel) Name() string     { return "gated" }

func (m *gatedModel) Generate(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	m.started <- req.Messages
	select {
	case text := <-m.release:
		return &keel.Response{Parts: []keel.Part{keel.TextPart{Text: text}}, FinishReason: keel.FinishStop}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (m *gatedModel) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		res, err := m.Generate(ctx, req)
		if err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		if yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: res.Text()}, nil) {
			yield(keel.StreamEvent{Type: keel.EventFinish, FinishReason: keel.FinishStop}, nil)
		}
	}
}

// Messages sent to a busy thread wait their turn: the second turn's model
// call starts after the first answered, and sees its answer.
func TestStudioTurnsSerialised(t *testing.T) {
	m := &gatedModel{started: make(chan []keel.Message, 4), release: make(chan string)}
	e := newEnv(t, envOptions{model: m})
	sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
	for _, text := range []string{"first", "second"} {
		status, body := e.do("POST", "/api/agents/support/send-message", sendBody(text))
		wantStatus(t, "send-message "+text, status, body, http.StatusOK)
	}
	select {
	case <-m.started:
	case <-time.After(10 * time.Second):
		t.Fatal("Got(model calls) none in 10 s; want the first turn to run")
	}
	select {
	case <-m.started:
		t.Fatal("Got(second model call) while the first runs; want it to wait")
	default:
	}
	m.release <- "answer one"
	if got := chunkText(sub.turn()); got != "answer one" {
		t.Fatalf("Got(first turn) = %q; want answer one", got)
	}
	var prompt []keel.Message
	select {
	case prompt = <-m.started:
	case <-time.After(10 * time.Second):
		t.Fatal("Got(second model call) none in 10 s; want it after the first turn")
	}
	m.release <- "answer two"
	if got := chunkText(sub.turn()); got != "answer two" {
		t.Fatalf("Got(second turn) = %q; want answer two", got)
	}
	var texts []string
	for _, msg := range prompt {
		texts = append(texts, msg.Text())
	}
	if got := strings.Join(texts, "|"); !strings.Contains(got, "first|answer one|second") {
		t.Errorf("Got(second prompt) = %q; want the first turn and its answer before the second message", got)
	}
}

// A turn stopped with threads/abort ends with an error and a finish on
// the subscription.
func TestStudioAbort(t *testing.T) {
	m := &gatedModel{started: make(chan []keel.Message, 4), release: make(chan string)}
	e := newEnv(t, envOptions{model: m, config: noRetries})
	sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
	status, body := e.do("POST", "/api/agents/support/send-message", sendBody("stop me"))
	runID := wantStatus(t, "send-message", status, body, http.StatusOK)["runId"]
	select {
	case <-m.started:
	case <-time.After(10 * time.Second):
		t.Fatal("Got(model call) none in 10 s; want the turn to run")
	}
	status, body = e.do("POST", "/api/agents/support/threads/abort", `{"resourceId":"support","threadId":"t1","expectedRunId":"other"}`)
	if v := wantStatus(t, "abort of another run", status, body, http.StatusOK); v["aborted"] != false {
		t.Errorf("Got(abort naming another run) = %s; want aborted false", body)
	}
	status, body = e.do("POST", "/api/agents/support/threads/abort", `{"resourceId":"support","threadId":"t1"}`)
	if v := wantStatus(t, "abort", status, body, http.StatusOK); v["aborted"] != true {
		t.Fatalf("Got(abort) = %s; want aborted true", body)
	}
	chunks := sub.turn()
	if got := chunkTypes(chunks); !strings.HasSuffix(got, "error step-finish finish") || chunks[0]["runId"] != runID {
		t.Errorf("Got(aborted turn) = %s; want it to end with error step-finish finish, run %v", got, runID)
	}
}

// A refused spreadsheet sent from Studio: the subscribers see the
// recovery, then the answer.
func TestStudioRecoveryEvent(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{Unsupported: []string{xlsx}, Text: "Fine."})
	e := newEnv(t, envOptions{model: model})
	sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
	data := base64.StdEncoding.EncodeToString([]byte("PK\x03\x04fake"))
	status, body := e.do("POST", "/api/agents/support/send-message", `{"message":{"contents":[{"type":"text","text":"read"},`+
		`{"type":"file","data":"`+data+`","mediaType":"`+xlsx+`","filename":"leads.xlsx"}]},"resourceId":"support","threadId":"t1"}`)
	wantStatus(t, "send-message with a file", status, body, http.StatusOK)
	chunks := sub.turn()
	got := chunkTypes(chunks)
	if !strings.Contains(got, server.EventRecovery) || !strings.HasSuffix(got, "text-end step-finish finish") {
		t.Errorf("Got(turn) = %s; want a %s, then the answer", got, server.EventRecovery)
	}
}

// A subscriber that goes away leaves no goroutine behind, and its thread
// no entry: the goroutine count comes back to what it was.
func TestStudioSubscriberLeavesNothing(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "x"})})
	settle := func(limit int) int {
		deadline := time.Now().Add(10 * time.Second)
		n := runtime.NumGoroutine()
		for n > limit && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // polling the count, not synchronising
			n = runtime.NumGoroutine()
		}
		return n
	}
	before := runtime.NumGoroutine()
	var subs []*subscription
	for range 10 {
		subs = append(subs, e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`))
	}
	if during := runtime.NumGoroutine(); during < before+10 {
		t.Fatalf("Got(goroutines with 10 subscriptions) = %d, %d before; want at least one each", during, before)
	}
	for _, s := range subs {
		s.cancel()
	}
	if after := settle(before); after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("Got(goroutines after the subscribers left) = %d; want at most %d\n%s", after, before, buf[:runtime.Stack(buf, true)])
	}
}

// A run of /stream on the thread reaches its subscribers too, such as a
// Studio open on a thread another client chats in.
func TestStudioSubscriberSeesStreamRuns(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "from another client"})})
	sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
	other := e.subscribe(t, `{"resourceId":"support","threadId":"t2"}`)
	resp := e.send("POST", "/api/agents/support/stream", `{"messages":"hi","memory":{"thread":"t1","resource":"support"}}`)
	events, _ := parseSSE(t, must(io.ReadAll(resp.Body)))
	resp.Body.Close()
	chunks := sub.turn()
	if got, want := chunkTypes(chunks), types(events); got != want || chunkText(chunks) != "from another client" {
		t.Errorf("Got(subscriber of t1) = %s %q; want the stream's own chunks %s", got, chunkText(chunks), want)
	}
	select {
	case b := <-other.blocks:
		if b != ": ping" {
			t.Errorf("Got(subscriber of t2) = %q; want nothing of t1's run", b)
		}
	default:
	}
}

// A run of /generate on the thread reaches its subscribers too, once it
// has ended, in the chunks a stream of the same turn carries: a tool
// step, then the answer. A failed one shows its error.
func TestStudioSubscriberSeesGenerateRuns(t *testing.T) {
	call := keel.ToolCallPart{ID: "c1", Name: "lookup", Input: json.RawMessage(`{"q":"x"}`)}
	model := keeltest.NewModel(keeltest.Reply{ToolCalls: []keel.ToolCallPart{call}}, keeltest.Reply{Text: "found it 5521"},
		keeltest.Reply{ToolCalls: []keel.ToolCallPart{call}}, keeltest.Reply{Text: "found it 5521"},
		keeltest.Reply{Err: &keel.APICallError{Provider: "keeltest", StatusCode: 500, Message: "boom 7730"}})
	mem := memory.NewInMemory()
	lookup := tool.Tool{Name: "lookup", Description: "finds", Execute: func(ctx context.Context, c tool.Call) (any, error) { return "x", nil }}
	a := must(agent.New(agent.Config{ID: "support", Model: model, Memory: mem, Tools: []tool.Tool{lookup}, Logger: quietLogger(),
		DisableDefaultErrorProcessors: true}))
	e := newEnv(t, envOptions{model: model, mem: mem, config: func(c *server.Config) { c.Agents = []*agent.Agent{a} }})
	sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
	status, body := e.do("POST", "/api/agents/support/generate", `{"messages":"hi","memory":{"thread":"t1","resource":"support"}}`)
	if status != 200 {
		t.Fatalf("Got(generate) = %d %s; want 200", status, body)
	}
	generated := sub.turn()
	resp := e.send("POST", "/api/agents/support/stream", `{"messages":"hi","memory":{"thread":"t2","resource":"support"}}`)
	events, _ := parseSSE(t, must(io.ReadAll(resp.Body)))
	resp.Body.Close()
	// A stream sends the text word by word, the generate turn at once.
	deltas := regexp.MustCompile(`(text-delta )+`)
	if got, want := chunkTypes(generated), deltas.ReplaceAllString(types(events), "text-delta "); got != want || chunkText(generated) != "found it 5521" {
		t.Errorf("Got(subscriber of a generate turn) = %s %q; want a stream's chunks %s", got, chunkText(generated), want)
	}
	if status, _ := e.do("POST", "/api/agents/support/generate", `{"messages":"again","memory":{"thread":"t1","resource":"support"}}`); status != 502 {
		t.Fatalf("Got(failing generate) = %d; want 502", status)
	}
	failed := sub.turn()
	if got := chunkTypes(failed); got != "start error step-finish finish" || !strings.Contains(fmt.Sprint(failed[1]["payload"]), "boom 7730") {
		t.Errorf("Got(subscriber of a failed generate turn) = %s %v; want start error step-finish finish with the error", got, failed)
	}
}

// A subscription never goes idle: a shutdown ends it, rather than wait
// for it the whole grace and fail.
func TestStudioSubscriptionEndsOnShutdown(t *testing.T) {
	mem := memory.NewInMemory()
	a := must(agent.New(agent.Config{ID: "support", Model: keeltest.NewModel(), Memory: mem, Logger: quietLogger()}))
	srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger(), ShutdownGrace: 30 * time.Second}))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	resp, err := http.Post("http://"+ln.Addr().String()+"/api/agents/support/threads/subscribe", "application/json",
		strings.NewReader(`{"resourceId":"support","threadId":"t1"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	blocks := readBlocks(resp.Body)
	if b := <-blocks; b != ": connected" {
		t.Fatalf("Got(first block) = %q; want : connected", b)
	}
	cancel()
	for range blocks { // the stream ends
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Got(Serve) = %v; want nil: the subscription ended with the shutdown", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Got(Serve) still running a minute after the shutdown; want it returned")
	}
}
