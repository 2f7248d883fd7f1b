package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/tool"
)

// lookupTool answers every call with the meaning of a word.
var lookupTool = tool.Tool{
	Name:        "lookup",
	Description: "looks a word up",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string"}}}`),
	Execute: func(ctx context.Context, call tool.Call) (any, error) {
		return map[string]string{"meaning": "a greeting"}, nil
	},
}

// withTools gives the test agent tools.
func withTools(tools ...tool.Tool) func(*server.Config) {
	return func(c *server.Config) {
		cfg := c.Agents[0].Config()
		cfg.Tools = tools
		c.Agents[0] = must(agentNew(cfg))
	}
}

func lookupCall() keeltest.Reply {
	return keeltest.Reply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "lookup", Input: json.RawMessage(`{"word":"hi"}`)}}}
}

// The generate answer lists the run's tool calls and results, per run and
// per step, and its stored messages show each call with its result, as do
// the thread's listed messages.
func TestGenerateToolCallsAndResults(t *testing.T) {
	model := keeltest.NewModel(lookupCall(), keeltest.Reply{Text: "It means a greeting."})
	e := newEnv(t, envOptions{model: model, config: withTools(lookupTool)})
	status, body := e.do("POST", "/api/agents/support/generate", `{"memory":{"thread":"t","resource":"r"},"messages":"what is hi?"}`)
	wantStatus(t, "generate", status, body, 200)
	type chunk struct {
		Type    string
		Payload struct {
			ToolCallID, ToolName string
			Args, Result         map[string]any
		}
	}
	var res struct {
		Text        string
		ToolCalls   []chunk
		ToolResults []chunk
		Steps       []struct {
			StepType    string
			ToolCalls   []chunk
			ToolResults []chunk
		}
		Messages []wireMessage
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	wantCall := func(what string, cs []chunk, typ string) {
		t.Helper()
		if len(cs) != 1 || cs[0].Type != typ || cs[0].Payload.ToolCallID != "c1" || cs[0].Payload.ToolName != "lookup" {
			t.Errorf("Got(%s) = %+v; want one %s of lookup c1", what, cs, typ)
		}
	}
	wantCall("toolCalls", res.ToolCalls, "tool-call")
	wantCall("toolResults", res.ToolResults, "tool-result")
	if len(res.ToolCalls) == 1 && res.ToolCalls[0].Payload.Args["word"] != "hi" {
		t.Errorf("Got(tool call args) = %v; want word hi", res.ToolCalls[0].Payload.Args)
	}
	if len(res.ToolResults) == 1 && res.ToolResults[0].Payload.Result["meaning"] != "a greeting" {
		t.Errorf("Got(tool result) = %v; want meaning a greeting", res.ToolResults[0].Payload.Result)
	}
	if len(res.Steps) != 2 || res.Steps[0].StepType != "initial" || res.Steps[1].StepType != "tool-result" {
		t.Fatalf("Got(steps) = %+v; want the tool step and the answer", res.Steps)
	}
	wantCall("steps[0].toolCalls", res.Steps[0].ToolCalls, "tool-call")
	wantCall("steps[0].toolResults", res.Steps[0].ToolResults, "tool-result")
	if len(res.Steps[1].ToolCalls) != 0 {
		t.Errorf("Got(steps[1].toolCalls) = %+v; want none", res.Steps[1].ToolCalls)
	}
	wantInvocationResult(t, "generate messages", res.Messages)

	status, body = e.do("GET", "/api/memory/threads/t/messages?resourceId=r", nil)
	wantStatus(t, "messages", status, body, 200)
	var page struct{ Messages []wireMessage }
	if err := json.Unmarshal(body, &page); err != nil {
		t.Fatal(err)
	}
	wantInvocationResult(t, "listed messages", page.Messages)
}

type wireMessage struct {
	Role    string
	Content struct {
		Parts []struct {
			Type           string
			ToolInvocation struct {
				State, ToolCallID, ToolName string
				Args, Result                map[string]any
			}
		}
	}
}

// wantInvocationResult checks that the assistant message calling lookup
// shows the call in state "result", with its result attached.
func wantInvocationResult(t *testing.T, what string, msgs []wireMessage) {
	t.Helper()
	for _, m := range msgs {
		for _, p := range m.Content.Parts {
			inv := p.ToolInvocation
			if p.Type != "tool-invocation" || inv.Args == nil {
				continue
			}
			if m.Role != "assistant" || inv.ToolCallID != "c1" || inv.State != "result" || inv.Result["meaning"] != "a greeting" || inv.Args["word"] != "hi" {
				t.Errorf("Got(%s call) = %s %+v; want assistant, c1 in state result with its args and result", what, m.Role, inv)
			}
			return
		}
	}
	t.Errorf("Got(%s) = %+v; want the tool call among them", what, msgs)
}

// maxSteps caps the model calls of the run; a negative one is a 400.
func TestGenerateMaxSteps(t *testing.T) {
	model := keeltest.NewModel(lookupCall())
	model.RepeatLast = true // would call the tool for ever
	e := newEnv(t, envOptions{model: model, config: withTools(lookupTool)})
	status, body := e.do("POST", "/api/agents/support/generate", `{"messages":"loop","maxSteps":2}`)
	v := wantStatus(t, "generate with maxSteps 2", status, body, 200)
	if model.Calls() != 2 || v["finishReason"] != "tool-calls" {
		t.Errorf("Got(model calls, finishReason) = %d, %v; want 2, tool-calls", model.Calls(), v["finishReason"])
	}
	status, body = e.do("POST", "/api/agents/support/generate", `{"messages":"loop","maxSteps":-1}`)
	wantError(t, "generate with maxSteps -1", status, body, http.StatusBadRequest, "maxSteps")
	if model.Calls() != 2 {
		t.Errorf("Got(model calls after the 400) = %d; want still 2", model.Calls())
	}
}

// An agent lists its tools, keyed by name, with their description and
// input schema, in both agent routes.
func TestAgentListsItsTools(t *testing.T) {
	other := tool.Tool{Name: "echo", Description: "says it back", Execute: func(_ context.Context, c tool.Call) (any, error) {
		return c.Input, nil
	}}
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: withTools(lookupTool, other)})
	// A schema is a string, {"json": schema}, as Mastra's server
	// serialises it (superjson) and Studio's tool pages parse it.
	type wireTool struct {
		ID, Description string
		InputSchema     string
	}
	schemaOf := func(tl wireTool) map[string]any {
		var s struct{ JSON map[string]any }
		if err := json.Unmarshal([]byte(tl.InputSchema), &s); err != nil {
			t.Errorf("Got(%s's inputSchema) = %q, %v; want {\"json\": schema} as a string", tl.ID, tl.InputSchema, err)
		}
		return s.JSON
	}
	check := func(what string, tools map[string]wireTool) {
		t.Helper()
		l, o := tools["lookup"], tools["echo"]
		props, _ := schemaOf(l)["properties"].(map[string]any)
		if len(tools) != 2 || l.ID != "lookup" || l.Description != "looks a word up" || props["word"] == nil {
			t.Errorf("Got(%s lookup) = %+v of %d tools; want lookup with its description and schema", what, l, len(tools))
		}
		if o.ID != "echo" || o.Description != "says it back" || schemaOf(o)["type"] != "object" {
			t.Errorf("Got(%s echo) = %+v; want echo, its description and the default object schema", what, o)
		}
	}
	status, body := e.do("GET", "/api/agents/support", nil)
	wantStatus(t, "agent", status, body, 200)
	var one struct{ Tools map[string]wireTool }
	if err := json.Unmarshal(body, &one); err != nil {
		t.Fatal(err)
	}
	check("GET /api/agents/support", one.Tools)
	status, body = e.do("GET", "/api/agents", nil)
	wantStatus(t, "agents", status, body, 200)
	var all map[string]struct{ Tools map[string]wireTool }
	if err := json.Unmarshal(body, &all); err != nil {
		t.Fatal(err)
	}
	check("GET /api/agents", all["support"].Tools)
}
