package anthropic_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/providertest"
)

// send generates req against a server answering text and returns the one
// request body the server saw.
func send(t *testing.T, req *keel.Request) (wireRequest, providertest.Recorded) {
	t.Helper()
	s := providertest.NewServer(t, providertest.Reply{Body: textBody("ok")})
	if _, err := newModel(t, s.URL()).Generate(context.Background(), req); err != nil {
		t.Fatalf("Got(Generate) = %v; want no error", err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("Got(requests) = %d; want 1", len(reqs))
	}
	return decodeRequest(t, reqs[0].Body), reqs[0]
}

func TestRequestSettings(t *testing.T) {
	tests := []struct {
		name      string
		req       keel.Request
		maxTokens int
		temp      *float64
	}{
		{"defaults", keel.Request{}, anthropic.DefaultMaxOutputTokens, nil},
		{"max tokens", keel.Request{MaxOutputTokens: 123}, 123, nil},
		{"temperature", keel.Request{Temperature: 0.25, HasTemperature: true}, anthropic.DefaultMaxOutputTokens, ptr(0.25)},
		{"zero temperature", keel.Request{HasTemperature: true}, anthropic.DefaultMaxOutputTokens, ptr(0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Messages = []keel.Message{keel.UserText("hi")}
			got, _ := send(t, &tc.req)
			if got.Model != "claude-sonnet-4-5" || got.MaxTokens != tc.maxTokens || got.Stream {
				t.Errorf("Got(model, max_tokens, stream) = %q, %d, %v; want claude-sonnet-4-5, %d, false", got.Model, got.MaxTokens, got.Stream, tc.maxTokens)
			}
			switch {
			case tc.temp == nil && got.Temperature != nil:
				t.Errorf("Got(temperature) = %v; want none", *got.Temperature)
			case tc.temp != nil && (got.Temperature == nil || *got.Temperature != *tc.temp):
				t.Errorf("Got(temperature) = %v; want %v", got.Temperature, *tc.temp)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }

func TestRequestHeaders(t *testing.T) {
	s := providertest.NewServer(t, providertest.Reply{Body: textBody("ok")})
	m, err := anthropic.New("claude-haiku-4-5", anthropic.Options{
		APIKey: "sk-ant-key-1", BaseURL: s.URL(),
		Headers: http.Header{"Anthropic-Beta": {"files-api-2025-04-14"}, "X-Team": {"a", "b"}, "Anthropic-Version": {"2023-06-01"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	req := &keel.Request{Messages: []keel.Message{keel.UserText("hi")}, Headers: map[string]string{"X-Call": "1"}}
	if _, err := m.Generate(context.Background(), req); err != nil {
		t.Fatalf("Got(Generate) = %v; want no error", err)
	}
	h := s.Requests()[0].Header
	for _, tc := range []struct{ name, want string }{
		// This SDK sends the key as a bearer token, not as x-api-key.
		{"Authorization", "Bearer sk-ant-key-1"},
		{"Anthropic-Beta", "files-api-2025-04-14"},
		{"X-Call", "1"},
		{"Content-Type", "application/json"},
		{"Anthropic-Version", "2023-06-01"},
	} {
		if got := h.Get(tc.name); got != tc.want {
			t.Errorf("Got(%s) = %q; want %q", tc.name, got, tc.want)
		}
	}
	if got := h.Values("X-Team"); len(got) != 2 {
		t.Errorf("Got(X-Team) = %q; want both values", got)
	}
	if got := h.Values("Anthropic-Version"); len(got) != 1 {
		t.Errorf("Got(Anthropic-Version) = %q; want the option's value alone", got)
	}
}

func TestRequestMessages(t *testing.T) {
	call := keel.ToolCallPart{ID: "toolu_1", Name: "lookup", Input: json.RawMessage(`{"q":"x"}`)}
	req := &keel.Request{Messages: []keel.Message{
		keel.SystemText("first rule"),
		keel.UserText("question"),
		{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: ""}, keel.TextPart{Text: "more"}}},
		{Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "calling"}, call}},
		{Role: keel.RoleTool, Parts: []keel.Part{
			keel.ToolResultPart{CallID: "toolu_1", Name: "lookup", Output: json.RawMessage(`"plain text"`)},
		}},
		{Role: keel.RoleTool, Parts: []keel.Part{
			keel.ToolResultPart{CallID: "toolu_2", Name: "lookup", Output: json.RawMessage(`{"n":1}`), IsError: true},
		}},
		keel.SystemText("second rule"),
		{Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolCallPart{ID: "toolu_3", Name: "noargs"}}},
	}}
	got, _ := send(t, req)
	if len(got.System) != 2 || got.System[0].Text != "first rule" || got.System[1].Text != "second rule" {
		t.Errorf("Got(system) = %+v; want both system texts in order", got.System)
	}
	roles := []string{}
	for _, m := range got.Messages {
		roles = append(roles, m.Role)
	}
	if want := []string{"user", "assistant", "user", "assistant"}; !slices.Equal(roles, want) {
		t.Fatalf("Got(roles) = %q; want %q", roles, want)
	}
	if u := got.Messages[0].Content; len(u) != 2 || u[0].Text != "question" || u[1].Text != "more" {
		t.Errorf("Got(merged user content) = %+v; want question, more (the empty text dropped)", u)
	}
	a := got.Messages[1].Content
	if len(a) != 2 || a[1].Type != "tool_use" || a[1].ID != "toolu_1" || a[1].Name != "lookup" || string(a[1].Input) != `{"q":"x"}` {
		t.Errorf("Got(assistant content) = %+v; want text then the tool_use", a)
	}
	results := got.Messages[2].Content
	if len(results) != 2 {
		t.Fatalf("Got(tool results) = %+v; want 2 in one user message", results)
	}
	if r := results[0]; r.Type != "tool_result" || r.ToolUseID != "toolu_1" || r.IsError || len(r.Content) != 1 || r.Content[0].Text != "plain text" {
		t.Errorf("Got(first tool result) = %+v; want the string unquoted", r)
	}
	if r := results[1]; r.ToolUseID != "toolu_2" || !r.IsError || r.Content[0].Text != `{"n":1}` {
		t.Errorf("Got(second tool result) = %+v; want the JSON as text, is_error", r)
	}
	if c := got.Messages[3].Content; len(c) != 1 || string(c[0].Input) != `{}` {
		t.Errorf("Got(tool call without input) = %+v; want input {}", c)
	}
}

func TestRequestTools(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"],"additionalProperties":false}`)
	tools := []keel.ToolDefinition{{Name: "search", Description: "Searches.", InputSchema: schema}, {Name: "now"}}
	tests := []struct {
		choice, want string
	}{
		{"", ``},
		{"auto", `{"type":"auto"}`},
		{"none", `{"type":"none"}`},
		{"required", `{"type":"any"}`},
		{"search", `{"type":"tool","name":"search"}`},
	}
	for _, tc := range tests {
		t.Run("choice "+tc.choice, func(t *testing.T) {
			got, _ := send(t, &keel.Request{Messages: []keel.Message{keel.UserText("hi")}, Tools: tools, ToolChoice: tc.choice})
			if !jsonEq(got.ToolChoice, tc.want) {
				t.Errorf("Got(tool_choice) = %s; want %s", got.ToolChoice, tc.want)
			}
			if len(got.Tools) != 2 || got.Tools[0].Name != "search" || got.Tools[0].Description != "Searches." || !jsonEq(got.Tools[0].InputSchema, string(schema)) {
				t.Fatalf("Got(tools) = %+v; want search with its schema as given", got.Tools)
			}
			if !jsonEq(got.Tools[1].InputSchema, `{"type":"object","properties":{}}`) {
				t.Errorf("Got(schema of a tool without one) = %s; want an empty object schema", got.Tools[1].InputSchema)
			}
		})
	}
}

func jsonEq(got json.RawMessage, want string) bool {
	if want == "" {
		return len(got) == 0
	}
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestRequestBadInput(t *testing.T) {
	tests := []struct {
		name string
		req  *keel.Request
	}{
		{"nil request", nil},
		{"unknown role", &keel.Request{Messages: []keel.Message{{Role: "robot", Parts: []keel.Part{keel.TextPart{Text: "x"}}}}}},
		{"bad schema", &keel.Request{Messages: []keel.Message{keel.UserText("x")}, Tools: []keel.ToolDefinition{{Name: "t", InputSchema: json.RawMessage(`{`)}}}},
		{"tool without name", &keel.Request{Messages: []keel.Message{keel.UserText("x")}, Tools: []keel.ToolDefinition{{}}}},
		{"bad tool call input", &keel.Request{Messages: []keel.Message{{Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolCallPart{ID: "a", Name: "b", Input: json.RawMessage(`{x`)}}}}}},
		{"tool result from the assistant", &keel.Request{Messages: []keel.Message{{Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolResultPart{CallID: "a"}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t)
			m := newModel(t, s.URL())
			_, gerr := m.Generate(context.Background(), tc.req)
			serr := providertest.Collect(t, m.Stream(context.Background(), tc.req)).Err
			for name, err := range map[string]error{"generate": gerr, "stream": serr} {
				if err == nil || !strings.HasPrefix(err.Error(), "anthropic: build request: ") {
					t.Errorf("Got(%s error) = %v; want an anthropic: build request: error", name, err)
				}
			}
			if n := len(s.Requests()); n != 0 {
				t.Errorf("Got(requests) = %d; want 0", n)
			}
		})
	}
}

// TestGenerateHugeMaxTokens pins the SDK's own refusal of a non-streaming
// call whose answer could take over ten minutes: nothing is sent, and the
// error says to stream.
func TestGenerateHugeMaxTokens(t *testing.T) {
	s := providertest.NewServer(t, providertest.Reply{Body: textBody("ok")})
	m := newModel(t, s.URL())
	req := &keel.Request{Messages: []keel.Message{keel.UserText("hi")}, MaxOutputTokens: 64000}
	_, err := m.Generate(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "streaming is required") || !strings.HasPrefix(err.Error(), "anthropic: generate: ") {
		t.Errorf("Got(Generate error) = %v; want the SDK's request to stream", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("Got(requests) = %d; want 0", n)
	}
	if c := providertest.Collect(t, m.Stream(context.Background(), req)); c.Err != nil {
		t.Errorf("Got(Stream error) = %v; want none", c.Err)
	}
}
