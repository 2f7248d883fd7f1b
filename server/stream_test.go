package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/workspace"
)

type finishP struct {
	MessageID  string `json:"messageId"`
	StepResult struct {
		Reason      string `json:"reason"`
		IsContinued bool   `json:"isContinued"`
	} `json:"stepResult"`
	Output struct {
		Text  string `json:"text"`
		Usage struct {
			InputTokens, OutputTokens, TotalTokens int
		} `json:"usage"`
	} `json:"output"`
	Metadata struct {
		ID      string `json:"id"`
		ModelID string `json:"modelId"`
	} `json:"metadata"`
}

func TestStreamText(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{Text: "Hello from the mock model."})
	e := newEnv(t, envOptions{model: model})
	resp := e.send("POST", "/api/agents/support/stream", `{"messages":"Stream please","memory":{"thread":"t-s","resource":"user-1"}}`)
	defer resp.Body.Close()
	for h, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("Got(%s) = %q; want %q", h, got, want)
		}
	}
	body := must(io.ReadAll(resp.Body))
	events, _ := parseSSE(t, body)
	want := "start step-start text-start text-delta text-delta text-delta text-delta text-delta text-end step-finish finish"
	if got := types(events); got != want {
		t.Fatalf("Got(events) = %s; want %s", got, want)
	}
	runID := events[0].RunID
	var text strings.Builder
	for _, ev := range events {
		if ev.RunID != runID {
			t.Errorf("Got(%s runId) = %s; want %s", ev.Type, ev.RunID, runID)
		}
		if ev.Type == "text-delta" {
			text.WriteString(payload[struct{ Text string }](t, ev).Text)
		}
	}
	if text.String() != "Hello from the mock model." {
		t.Errorf("Got(deltas) = %q; want the model's text", text.String())
	}
	start := payload[struct{ ID, MessageID string }](t, events[0])
	if start.ID != "support" || start.MessageID == "" {
		t.Errorf("Got(start) = %+v; want agent id and a message id", start)
	}
	fin := payload[finishP](t, events[len(events)-1])
	if fin.StepResult.Reason != "stop" || fin.Output.Text != "Hello from the mock model." || fin.MessageID != start.MessageID ||
		fin.Output.Usage.InputTokens != googletest.InputTokens {
		t.Errorf("Got(finish) = %+v; want reason stop, the text, the start's message id and usage", fin)
	}
	// keel's recoveries are sent only when there were some, so that a
	// finish is what Mastra's own servers send.
	if raw := payload[map[string]json.RawMessage](t, events[len(events)-1]); raw["recoveries"] != nil {
		t.Errorf("Got(finish recoveries) = %s; want none on a run that recovered nothing", raw["recoveries"])
	}
	// step-finish carries the same response id and model as finish.
	step := payload[finishP](t, events[len(events)-2])
	if fin.Metadata.ID != googletest.ResponseID || fin.Metadata.ModelID != googletest.ModelVersion || step.Metadata != fin.Metadata {
		t.Errorf("Got(metadata) step-finish %+v, finish %+v; want both {%s %s}", step.Metadata, fin.Metadata, googletest.ResponseID, googletest.ModelVersion)
	}
	stored := storedMessages(t, e.mem, "user-1", "t-s")
	if len(stored) != 2 || stored[1].Text() != "Hello from the mock model." {
		t.Errorf("Got(stored) = %d messages; want question and answer", len(stored))
	}
}

// numberedModel gives each call's response its own id, resp-1, resp-2...,
// as a provider does.
type numberedModel struct {
	*keeltest.Model
	mu sync.Mutex
	n  int
}

func (m *numberedModel) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	m.mu.Lock()
	m.n++
	id := fmt.Sprintf("resp-%d", m.n)
	m.mu.Unlock()
	return func(yield func(keel.StreamEvent, error) bool) {
		for ev, err := range m.Model.Stream(ctx, req) {
			if ev.Type == keel.EventFinish {
				ev.ResponseID = id
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

func TestStreamToolCall(t *testing.T) {
	model := &numberedModel{Model: keeltest.NewModel(
		keeltest.Reply{Text: "Let me look.", ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "missing_tool", Input: []byte(`{"q":1}`)}}},
		keeltest.Reply{Text: "Done."},
	)}
	e := newEnv(t, envOptions{model: model})
	resp := e.send("POST", "/api/agents/support/stream", `{"messages":"go"}`)
	defer resp.Body.Close()
	events, _ := parseSSE(t, must(io.ReadAll(resp.Body)))
	want := "start step-start text-start text-delta text-delta text-delta text-end tool-call tool-result step-finish " +
		"step-start text-start text-delta text-end step-finish finish"
	if got := types(events); got != want {
		t.Fatalf("Got(events) = %s; want %s", got, want)
	}
	// Each step's text is a block of its own, numbered as Mastra numbers
	// them: txt-1, then txt-2.
	var ids []string
	for _, ev := range events {
		if strings.HasPrefix(ev.Type, "text-") {
			ids = append(ids, ev.Type+" "+payload[struct{ ID string }](t, ev).ID)
		}
	}
	wantIDs := "text-start txt-1,text-delta txt-1,text-delta txt-1,text-delta txt-1,text-end txt-1," +
		"text-start txt-2,text-delta txt-2,text-end txt-2"
	if got := strings.Join(ids, ","); got != wantIDs {
		t.Errorf("Got(text blocks' ids) = %s; want %s", got, wantIDs)
	}
	call := payload[struct {
		ToolCallID, ToolName string
		Args                 map[string]any
	}](t, events[7])
	if call.ToolCallID != "c1" || call.ToolName != "missing_tool" || call.Args["q"] != float64(1) {
		t.Errorf("Got(tool-call) = %+v; want c1 missing_tool {q:1}", call)
	}
	res := payload[struct {
		ToolCallID string
		IsError    bool
	}](t, events[8])
	if res.ToolCallID != "c1" || !res.IsError {
		t.Errorf("Got(tool-result) = %+v; want c1, an error (no such tool)", res)
	}
	step := payload[finishP](t, events[9])
	if step.StepResult.Reason != "tool-calls" || !step.StepResult.IsContinued {
		t.Errorf("Got(first step-finish) = %+v; want tool-calls, continued", step.StepResult)
	}
	// Each step-finish carries its own call's response id and model; the
	// finish, the last call's.
	if step.Metadata.ID != "resp-1" || step.Metadata.ModelID != "scripted" {
		t.Errorf("Got(first step-finish metadata) = %+v; want resp-1, scripted", step.Metadata)
	}
	last, fin := payload[finishP](t, events[len(events)-2]), payload[finishP](t, events[len(events)-1])
	if last.Metadata.ID != "resp-2" || last.Metadata != fin.Metadata {
		t.Errorf("Got(last step-finish metadata) = %+v, finish %+v; want resp-2 on both", last.Metadata, fin.Metadata)
	}
}

// A failure after the stream opened: error, step-finish and finish with
// reason error, status 200.
func TestStreamErrorAfterOpen(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "partial answer", Err: &keel.APICallError{Provider: "google", StatusCode: 400, Message: "bad things"}})
	e := newEnv(t, envOptions{model: model, config: noRetries})
	resp := e.send("POST", "/api/agents/support/stream", `{"messages":"go"}`)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("Got(status) = %d; want 200", resp.StatusCode)
	}
	events, _ := parseSSE(t, must(io.ReadAll(resp.Body)))
	want := "start step-start text-start text-delta text-delta text-end error step-finish finish"
	if got := types(events); got != want {
		t.Fatalf("Got(events) = %s; want %s", got, want)
	}
	ep := payload[struct {
		Error struct{ Message, Name string }
	}](t, events[6])
	if !strings.Contains(ep.Error.Message, "bad things") || ep.Error.Name != "APICallError" {
		t.Errorf("Got(error) = %+v; want the model's message, APICallError", ep)
	}
	for _, ev := range events[7:] {
		if got := payload[finishP](t, ev).StepResult.Reason; got != "error" {
			t.Errorf("Got(%s reason) = %s; want error", ev.Type, got)
		}
	}
}

// A failure before the stream opened is an ordinary JSON error.
func TestStreamErrorBeforeOpen(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		cfg := c.Agents[0].Config()
		cfg.Memory = nil
		c.Agents[0] = must(agentNew(cfg))
	}})
	status, body := e.do("POST", "/api/agents/support/stream", `{"messages":"go","memory":{"thread":"t","resource":"r"}}`)
	wantError(t, "stream on an agent without memory", status, body, 400, "memory")
	status, body = e.do("POST", "/api/agents/support/stream", `{"messages":{"role":"user"}}`)
	wantError(t, "stream with one message object", status, body, 400, "invalid request body")
}

// A refused spreadsheet: the stream tells the app the file was handled.
func TestStreamRecoveryEvent(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{Unsupported: []string{xlsx}, Text: "Fine."})
	e := newEnv(t, envOptions{model: model})
	data := base64.StdEncoding.EncodeToString([]byte("PK\x03\x04fake"))
	resp := e.send("POST", "/api/agents/support/stream", `{"memory":{"thread":"t","resource":"r"},"messages":[{"role":"user","content":[`+
		`{"type":"text","text":"read"},{"type":"file","data":"`+data+`","mediaType":"`+xlsx+`","filename":"leads.xlsx"}]}]}`)
	defer resp.Body.Close()
	events, _ := parseSSE(t, must(io.ReadAll(resp.Body)))
	var rec *sseEvent
	for i := range events {
		if events[i].Type == server.EventRecovery {
			rec = &events[i]
		}
	}
	if rec == nil {
		t.Fatalf("Got(events) = %s; want a %s", types(events), server.EventRecovery)
	}
	p := payload[struct {
		Processor, Action string
		Files             []struct{ Name, MediaType, Path string }
	}](t, *rec)
	if p.Processor != "unsupported-file-handler" || p.Action != "placeholder" || len(p.Files) != 1 ||
		p.Files[0].Name != "leads.xlsx" || p.Files[0].MediaType != xlsx {
		t.Errorf("Got(recovery) = %+v; want the handler's placeholder for leads.xlsx", p)
	}
	if got := types(events); !strings.HasSuffix(got, "text-end step-finish finish") {
		t.Errorf("Got(events) = %s; want the answer to follow", got)
	}
}

// A call that fails after text was streamed and is retried: the stream
// says the partial text is void.
func TestStreamRetryEvent(t *testing.T) {
	model := keeltest.NewModel(
		keeltest.Reply{Text: "half an", Err: &keel.APICallError{Provider: "google", StatusCode: 503, Retryable: true}},
		keeltest.Reply{Text: "whole answer"},
	)
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		cfg := c.Agents[0].Config()
		cfg.DisableDefaultErrorProcessors = true
		cfg.ErrorProcessors = []processorP{retryOnce{}}
		c.Agents[0] = must(agentNew(cfg))
	}})
	resp := e.send("POST", "/api/agents/support/stream", `{"messages":"go"}`)
	defer resp.Body.Close()
	events, _ := parseSSE(t, must(io.ReadAll(resp.Body)))
	want := "start step-start text-start text-delta text-delta text-end " + server.EventRetry + " text-start text-delta text-delta text-end step-finish finish"
	if got := types(events); got != want {
		t.Fatalf("Got(events) = %s; want %s", got, want)
	}
	if p := payload[struct{ Discard bool }](t, events[6]); !p.Discard {
		t.Errorf("Got(retry discard) = false; want true")
	}
	if got := payload[finishP](t, events[len(events)-1]).Output.Text; got != "whole answer" {
		t.Errorf("Got(finish text) = %q; want whole answer", got)
	}
}

// Long quiet streams get keep-alive comments: the model answers only once
// the client has seen one.
func TestStreamKeepAlive(t *testing.T) {
	pinged := make(chan struct{})
	model := keeltest.NewModel(keeltest.Reply{Respond: func(*keel.Request) keeltest.Reply {
		<-pinged
		return keeltest.Reply{Text: "late"}
	}})
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) { c.KeepAlive = 20 * time.Millisecond }})
	resp := e.send("POST", "/api/agents/support/stream", `{"messages":"go"}`)
	defer resp.Body.Close()
	var body []byte
	closed := false
	for b := range readBlocks(resp.Body) {
		if b == ": ping" && !closed {
			close(pinged)
			closed = true
		}
		body = append(append(body, b...), "\n\n"...)
	}
	events, pings := parseSSE(t, body)
	if pings == 0 {
		t.Errorf("Got(pings) = 0; want keep-alives while the model is silent")
	}
	if got := types(events); got != "start step-start text-start text-delta text-end step-finish finish" {
		t.Errorf("Got(events) = %s", got)
	}
}

// A client that goes away stops the run: the model's call sees its
// context end, nothing of the reply is stored, and the request is logged
// as the client closing it.
func TestStreamClientGoesAway(t *testing.T) {
	model := newBlockingModel()
	logs := newLogSink()
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) { c.Logger = logs.logger() }})
	ctx, cancel := context.WithCancel(context.Background())
	req := must(http.NewRequestWithContext(ctx, "POST", e.srv.URL+"/api/agents/support/stream", strings.NewReader(`{"messages":"go","memory":{"thread":"t","resource":"r"}}`)))
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	blocks := readBlocks(resp.Body)
	if b := <-blocks; !strings.Contains(b, `"type":"start"`) {
		t.Fatalf("Got(first block) = %q; want start", b)
	}
	waitFor(t, "model call", model.started)
	cancel()
	resp.Body.Close()
	waitFor(t, "model call to see the client go", model.ended)
	for range blocks {
	}
	// The line is written once the handler returned: the run is over.
	line := logs.wait(t, "request", func(a map[string]slog.Value) bool { return a["path"].String() == "/api/agents/support/stream" })
	if got := intAttr(line, "status"); got != server.StatusClientClosed {
		t.Errorf("Got(logged status) = %d; want %d, the client closed the request", got, server.StatusClientClosed)
	}
	if got := storedMessages(t, e.mem, "r", "t"); len(got) != 1 {
		t.Errorf("Got(stored) = %d messages; want only the question", len(got))
	}
}

// With a sandbox, the refused spreadsheet is uploaded, and the stream
// says where it went.
func TestStreamRecoveryUploaded(t *testing.T) {
	model, gem := geminiModel(t, googletest.Options{Unsupported: []string{xlsx}, Text: "Fine."})
	sb := keeltest.NewSandbox("sb")
	e := newEnv(t, envOptions{model: model, config: func(c *server.Config) {
		cfg := c.Agents[0].Config()
		cfg.Workspace = workspace.New(sb)
		c.Agents[0] = must(agentNew(cfg))
	}})
	file := []byte("PK\x03\x04 a spreadsheet")
	resp := e.send("POST", "/api/agents/support/stream", `{"memory":{"thread":"thread-1","resource":"r"},"messages":[{"role":"user","content":[`+
		`{"type":"text","text":"read"},{"type":"file","data":"data:`+xlsx+`;base64,`+base64.StdEncoding.EncodeToString(file)+`","mediaType":"`+xlsx+`","filename":"leads.xlsx"}]}]}`)
	defer resp.Body.Close()
	events, _ := parseSSE(t, must(io.ReadAll(resp.Body)))
	var got []string
	for _, ev := range events {
		if ev.Type != server.EventRecovery {
			continue
		}
		p := payload[struct {
			Action string
			Files  []struct{ Name, Path string }
		}](t, ev)
		for _, f := range p.Files {
			got = append(got, p.Action+" "+f.Name+" "+f.Path)
		}
	}
	sum := sha256.Sum256(file)
	want := "uploaded leads.xlsx " + keeltest.SandboxWorkDir + "/uploads/thread-1/" + hex.EncodeToString(sum[:]) + ".xlsx"
	if len(got) != 1 || got[0] != want {
		t.Errorf("Got(recoveries) = %q; want %q", got, want)
	}
	if files := sb.Files(); len(files) != 1 {
		t.Errorf("Got(sandbox files) = %d; want the spreadsheet", len(files))
	}
	second := must(gem.Requests()[1].Decode())
	if texts := strings.Join(second.UserTexts(), "\n"); !strings.Contains(texts, "[File uploaded to the sandbox]") {
		t.Errorf("Got(second prompt) = %q; want the upload note", texts)
	}
}
