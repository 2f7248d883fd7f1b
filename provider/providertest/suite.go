package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"slices"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

// Run runs the conformance suite against h. Every subtest starts its own
// [Server], so subtests run in parallel.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.NewModel == nil || h.Text == nil || h.StreamText == nil || h.ToolCall == nil ||
		h.StreamToolCall == nil || h.Error == nil || h.ErrorCodes == nil || h.SentFiles == nil || h.SentText == nil || h.IsSDKError == nil {
		t.Fatal("providertest: harness is missing a required function")
	}
	t.Run("Text", func(t *testing.T) { t.Parallel(); testText(t, h) })
	t.Run("StreamText", func(t *testing.T) { t.Parallel(); testStreamText(t, h) })
	t.Run("ToolRoundTrip", func(t *testing.T) { t.Parallel(); testToolRoundTrip(t, h, false) })
	t.Run("StreamToolRoundTrip", func(t *testing.T) { t.Parallel(); testToolRoundTrip(t, h, true) })
	t.Run("Headers", func(t *testing.T) { t.Parallel(); testHeaders(t, h) })
	t.Run("Files", func(t *testing.T) { t.Parallel(); testFiles(t, h) })
	t.Run("ToolFiles", func(t *testing.T) { t.Parallel(); testToolFiles(t, h) })
	t.Run("Errors", func(t *testing.T) { t.Parallel(); testErrors(t, h) })
	t.Run("StreamError", func(t *testing.T) { t.Parallel(); testStreamError(t, h) })
	t.Run("RetryAfter", func(t *testing.T) { t.Parallel(); testRetryAfter(t, h) })
	t.Run("ShouldRetryHeader", func(t *testing.T) { t.Parallel(); testShouldRetryHeader(t, h) })
	t.Run("NoSDKRetries", func(t *testing.T) { t.Parallel(); testNoSDKRetries(t, h) })
	t.Run("Cancel", func(t *testing.T) { t.Parallel(); testCancel(t, h) })
	t.Run("StreamStopEarly", func(t *testing.T) { t.Parallel(); testStreamStopEarly(t, h) })
	t.Run("ConnectionRefused", func(t *testing.T) { t.Parallel(); testConnectionRefused(t, h) })
	t.Run("Silence", func(t *testing.T) { t.Parallel(); testSilence(t, h) })
	t.Run("ResetMidEvent", func(t *testing.T) { t.Parallel(); testResetMidEvent(t, h) })
}

// Collected is what a stream yielded.
type Collected struct {
	Text      string
	Deltas    int
	ToolCalls []keel.ToolCallPart
	Finish    *keel.StreamEvent
	Err       error
}

// Collect drains a stream; it fails the test when events follow an error
// or the finish event.
func Collect(t testing.TB, seq iter.Seq2[keel.StreamEvent, error]) Collected {
	t.Helper()
	var c Collected
	for ev, err := range seq {
		if c.Err != nil || c.Finish != nil {
			t.Errorf("Got(event after end) = %+v, %v; want nothing", ev, err)
		}
		if err != nil {
			c.Err = err
			continue
		}
		switch ev.Type {
		case keel.EventTextDelta:
			c.Text += ev.Text
			c.Deltas++
		case keel.EventToolCall:
			c.ToolCalls = append(c.ToolCalls, ev.ToolCall)
		case keel.EventFinish:
			e := ev
			c.Finish = &e
		}
	}
	return c
}

func userText(text string) []keel.Message { return []keel.Message{keel.UserText(text)} }

func checkPath(t *testing.T, s *Server, want string) {
	t.Helper()
	if want == "" {
		return
	}
	for _, r := range s.Requests() {
		if r.Path != want {
			t.Errorf("Got(request path) = %q; want %q", r.Path, want)
		}
	}
}

func checkOneRequest(t *testing.T, s *Server) Recorded {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("Got(requests) = %d; want 1", len(reqs))
	}
	if reqs[0].Method != "POST" {
		t.Errorf("Got(method) = %q; want POST", reqs[0].Method)
	}
	return reqs[0]
}

func wantUsage(t *testing.T, u keel.Usage) {
	t.Helper()
	if u.InputTokens != InputTokens || u.OutputTokens != OutputTokens {
		t.Errorf("Got(usage) = %+v; want input %d, output %d", u, InputTokens, OutputTokens)
	}
}

func testText(t *testing.T, h Harness) {
	s := NewServer(t, h.Text("Hello from keel"))
	m := h.NewModel(t, s.URL(), Timeouts{})
	if m.Provider() != h.Provider {
		t.Errorf("Got(Provider()) = %q; want %q", m.Provider(), h.Provider)
	}
	resp, err := m.Generate(context.Background(), &keel.Request{Messages: userText("Say hello")})
	if err != nil {
		t.Fatalf("Got(Generate) = %v; want no error", err)
	}
	if got := resp.Text(); got != "Hello from keel" {
		t.Errorf("Got(text) = %q; want %q", got, "Hello from keel")
	}
	if resp.FinishReason != keel.FinishStop {
		t.Errorf("Got(finish) = %q; want %q", resp.FinishReason, keel.FinishStop)
	}
	if resp.ID != ResponseID || resp.ModelID != ModelID {
		t.Errorf("Got(ID, ModelID) = %q, %q; want %q, %q", resp.ID, resp.ModelID, ResponseID, ModelID)
	}
	wantUsage(t, resp.Usage)
	r := checkOneRequest(t, s)
	if got := h.SentText(t, r.Body); !slices.Equal(got, []string{"Say hello"}) {
		t.Errorf("Got(sent text) = %q; want [Say hello]", got)
	}
	checkPath(t, s, h.GeneratePath)
}

func testStreamText(t *testing.T, h Harness) {
	s := NewServer(t, h.StreamText("Hello from keel"))
	m := h.NewModel(t, s.URL(), Timeouts{})
	c := Collect(t, m.Stream(context.Background(), &keel.Request{Messages: userText("Say hello")}))
	if c.Err != nil {
		t.Fatalf("Got(Stream) = %v; want no error", c.Err)
	}
	if c.Text != "Hello from keel" || c.Deltas < 2 {
		t.Errorf("Got(text, deltas) = %q, %d; want %q in at least 2 deltas", c.Text, c.Deltas, "Hello from keel")
	}
	if c.Finish == nil {
		t.Fatal("Got(finish event) = none; want one")
	}
	if c.Finish.FinishReason != keel.FinishStop {
		t.Errorf("Got(finish) = %q; want %q", c.Finish.FinishReason, keel.FinishStop)
	}
	if c.Finish.ResponseID != ResponseID || c.Finish.ModelID != ModelID {
		t.Errorf("Got(ID, ModelID) = %q, %q; want %q, %q", c.Finish.ResponseID, c.Finish.ModelID, ResponseID, ModelID)
	}
	wantUsage(t, c.Finish.Usage)
	r := checkOneRequest(t, s)
	if got := h.SentText(t, r.Body); !slices.Equal(got, []string{"Say hello"}) {
		t.Errorf("Got(sent text) = %q; want [Say hello]", got)
	}
	checkPath(t, s, h.StreamPath)
}

// The tool round trip's distinctive strings: the suite finds them in the
// request bodies whatever the wire format.
const (
	systemText   = "You are keel-system-7."
	toolName     = "get_weather"
	toolDesc     = "Gets the weather-9 of a city."
	toolCallID   = "call_keel_42"
	toolArgs     = `{"city":"Paris"}`
	toolOutput   = `"sunny-and-22C"`
	finalAnswer  = "It is sunny in Paris."
	toolQuestion = "Weather in Paris?"
)

func testToolRoundTrip(t *testing.T, h Harness, stream bool) {
	first, second := h.ToolCall(toolCallID, toolName, toolArgs), h.Text(finalAnswer)
	if stream {
		first, second = h.StreamToolCall(toolCallID, toolName, toolArgs), h.StreamText(finalAnswer)
	}
	s := NewServer(t, first, second)
	m := h.NewModel(t, s.URL(), Timeouts{})
	req := &keel.Request{
		Messages: []keel.Message{keel.SystemText(systemText), keel.UserText(toolQuestion)},
		Tools: []keel.ToolDefinition{{
			Name: toolName, Description: toolDesc,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		}},
	}
	calls, finish := call(t, m, req, stream)
	if finish != keel.FinishToolCalls {
		t.Errorf("Got(finish) = %q; want %q", finish, keel.FinishToolCalls)
	}
	if len(calls) != 1 {
		t.Fatalf("Got(tool calls) = %+v; want 1", calls)
	}
	c := calls[0]
	if c.ID != toolCallID || c.Name != toolName || !jsonEqual(c.Input, []byte(toolArgs)) {
		t.Errorf("Got(tool call) = %q %q %s; want %q %q %s", c.ID, c.Name, c.Input, toolCallID, toolName, toolArgs)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("Got(requests) = %d; want 1", len(reqs))
	}
	for _, want := range []string{systemText, toolName, toolDesc, `"city"`} {
		if !bytes.Contains(reqs[0].Body, []byte(want)) {
			t.Errorf("Got(first request body) = %s; want it to contain %q", reqs[0].Body, want)
		}
	}

	req.Messages = append(req.Messages,
		keel.Message{Role: keel.RoleAssistant, Parts: []keel.Part{c}},
		keel.Message{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: c.ID, Name: c.Name, Output: json.RawMessage(toolOutput)}}},
	)
	text, finish := callText(t, m, req, stream)
	if text != finalAnswer || finish != keel.FinishStop {
		t.Errorf("Got(final answer) = %q, %q; want %q, %q", text, finish, finalAnswer, keel.FinishStop)
	}
	reqs = s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("Got(requests) = %d; want 2", len(reqs))
	}
	for _, want := range []string{systemText, toolQuestion, toolCallID, "Paris", "sunny-and-22C"} {
		if !bytes.Contains(reqs[1].Body, []byte(want)) {
			t.Errorf("Got(second request body) = %s; want it to contain %q", reqs[1].Body, want)
		}
	}
}

func call(t *testing.T, m keel.Model, req *keel.Request, stream bool) ([]keel.ToolCallPart, keel.FinishReason) {
	t.Helper()
	if !stream {
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			t.Fatalf("Got(Generate) = %v; want no error", err)
		}
		return resp.ToolCalls(), resp.FinishReason
	}
	c := Collect(t, m.Stream(context.Background(), req))
	if c.Err != nil || c.Finish == nil {
		t.Fatalf("Got(Stream) = %v, finish %v; want a finished stream", c.Err, c.Finish)
	}
	wantUsage(t, c.Finish.Usage)
	return c.ToolCalls, c.Finish.FinishReason
}

func callText(t *testing.T, m keel.Model, req *keel.Request, stream bool) (string, keel.FinishReason) {
	t.Helper()
	if !stream {
		resp, err := m.Generate(context.Background(), req)
		if err != nil {
			t.Fatalf("Got(Generate) = %v; want no error", err)
		}
		return resp.Text(), resp.FinishReason
	}
	c := Collect(t, m.Stream(context.Background(), req))
	if c.Err != nil || c.Finish == nil {
		t.Fatalf("Got(Stream) = %v, finish %v; want a finished stream", c.Err, c.Finish)
	}
	return c.Text, c.Finish.FinishReason
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func testHeaders(t *testing.T, h Harness) {
	s := NewServer(t, h.Text("ok"))
	m := h.NewModel(t, s.URL(), Timeouts{})
	req := &keel.Request{Messages: userText("hi"), Headers: map[string]string{"X-Keel-Test": "call-header"}}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatalf("Got(Generate) = %v; want no error", err)
	}
	r := checkOneRequest(t, s)
	if got := r.Header.Get("X-Keel-Test"); got != "call-header" {
		t.Errorf("Got(X-Keel-Test) = %q; want %q", got, "call-header")
	}
}

// quick bounds the tests that wait for cancellation.
const quick = 5 * time.Second
