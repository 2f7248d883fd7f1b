package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// wireUsage is token usage as the client reads it.
type wireUsage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	TotalTokens  int `json:"totalTokens"`
}

func toWireUsage(u keel.Usage) wireUsage {
	return wireUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
}

// wireChunk is one chunk of Mastra's stream format, which the generate
// result also uses for its tool calls and results.
type wireChunk struct {
	Type    string `json:"type"`
	RunID   string `json:"runId"`
	From    string `json:"from"`
	Payload any    `json:"payload"`
}

type toolCallPayload struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args"`
}

type toolResultPayload struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Result     json.RawMessage `json:"result"`
	IsError    bool            `json:"isError,omitempty"`
}

func toolCallChunk(runID string, c keel.ToolCallPart) wireChunk {
	return wireChunk{Type: "tool-call", RunID: runID, From: "AGENT",
		Payload: toolCallPayload{ToolCallID: c.ID, ToolName: c.Name, Args: rawOrEmpty(c.Input)}}
}

func toolResultChunk(runID string, tr keel.ToolResultPart) wireChunk {
	return wireChunk{Type: "tool-result", RunID: runID, From: "AGENT",
		Payload: toolResultPayload{ToolCallID: tr.CallID, ToolName: tr.Name, Result: rawOrNull(tr.Output), IsError: tr.IsError}}
}

// wireGenerateResult is the answer of POST /api/agents/{id}/generate. It
// carries the reply only: the user's files are never echoed back.
type wireGenerateResult struct {
	Text         string              `json:"text"`
	FinishReason keel.FinishReason   `json:"finishReason"`
	Usage        wireUsage           `json:"usage"`
	TotalUsage   wireUsage           `json:"totalUsage"`
	ToolCalls    []wireChunk         `json:"toolCalls"`
	ToolResults  []wireChunk         `json:"toolResults"`
	Steps        []wireStep          `json:"steps"`
	Warnings     []struct{}          `json:"warnings"`
	Request      struct{}            `json:"request"`
	Response     wireResponse        `json:"response"`
	RunID        string              `json:"runId"`
	ThreadID     string              `json:"threadId,omitempty"`
	ResourceID   string              `json:"resourceId,omitempty"`
	Messages     []wireStoredMessage `json:"messages"`
	// Recoveries tell what keel's processors did to keep the run going.
	Recoveries []wireRecovery `json:"recoveries"`
}

type wireStep struct {
	StepType     string            `json:"stepType"`
	Text         string            `json:"text"`
	ToolCalls    []wireChunk       `json:"toolCalls"`
	ToolResults  []wireChunk       `json:"toolResults"`
	FinishReason keel.FinishReason `json:"finishReason"`
	Usage        wireUsage         `json:"usage"`
	Warnings     []struct{}        `json:"warnings"`
	Request      struct{}          `json:"request"`
}

type wireResponse struct {
	ID      string `json:"id"`
	ModelID string `json:"modelId"`
	// Model is the agent's model that answered, "provider/name": with a
	// list of models, the one the run fell back to.
	Model    string             `json:"model,omitempty"`
	Messages []wireModelMessage `json:"messages"`
}

// wireModelMessage is a reply message in the AI SDK's model-message shape.
type wireModelMessage struct {
	Role    keel.Role `json:"role"`
	Content []any     `json:"content"`
}

type wireModelToolCall struct {
	Type       string          `json:"type"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
}

type wireModelToolResult struct {
	Type       string         `json:"type"`
	ToolCallID string         `json:"toolCallId"`
	ToolName   string         `json:"toolName"`
	Output     wireToolOutput `json:"output"`
}

type wireToolOutput struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

func toModelMessages(msgs []keel.Message) []wireModelMessage {
	out := make([]wireModelMessage, 0, len(msgs))
	for _, m := range msgs {
		wm := wireModelMessage{Role: m.Role, Content: make([]any, 0, len(m.Parts))}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case keel.TextPart:
				wm.Content = append(wm.Content, wireTextPart{Type: "text", Text: p.Text})
			case keel.ToolCallPart:
				wm.Content = append(wm.Content, wireModelToolCall{Type: "tool-call", ToolCallID: p.ID, ToolName: p.Name, Input: rawOrEmpty(p.Input)})
			case keel.ToolResultPart:
				kind := "json"
				if p.IsError {
					kind = "error-json"
				}
				wm.Content = append(wm.Content, wireModelToolResult{Type: "tool-result", ToolCallID: p.CallID, ToolName: p.Name,
					Output: wireToolOutput{Type: kind, Value: rawOrNull(p.Output)}})
			}
		}
		out = append(out, wm)
	}
	return out
}

func toWireResult(res *agent.Result) wireGenerateResult {
	out := wireGenerateResult{
		Text: res.Text, FinishReason: res.FinishReason,
		Usage: toWireUsage(res.Usage), TotalUsage: toWireUsage(res.Usage),
		ToolCalls: make([]wireChunk, 0, len(res.ToolCalls)), ToolResults: make([]wireChunk, 0, len(res.ToolResults)),
		Steps: make([]wireStep, 0, len(res.Steps)), Warnings: []struct{}{},
		Response: wireResponse{ID: res.ResponseID, ModelID: res.ModelID, Model: res.Model, Messages: toModelMessages(res.Messages)},
		RunID:    res.RunID, ThreadID: res.ThreadID, ResourceID: res.ResourceID,
		Messages:   toWireMessages(res.Messages, res.ThreadID, res.ResourceID),
		Recoveries: toWireRecoveries(res.Recoveries),
	}
	for _, c := range res.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, toolCallChunk(res.RunID, c))
	}
	for _, tr := range res.ToolResults {
		out.ToolResults = append(out.ToolResults, toolResultChunk(res.RunID, tr))
	}
	for i, st := range res.Steps {
		ws := wireStep{StepType: "initial", Text: st.Text, FinishReason: st.FinishReason, Usage: toWireUsage(st.Usage),
			ToolCalls: make([]wireChunk, 0, len(st.ToolCalls)), ToolResults: make([]wireChunk, 0, len(st.ToolResults)),
			Warnings: []struct{}{}}
		if i > 0 {
			ws.StepType = "tool-result"
		}
		for _, c := range st.ToolCalls {
			ws.ToolCalls = append(ws.ToolCalls, toolCallChunk(res.RunID, c))
		}
		for _, tr := range st.ToolResults {
			ws.ToolResults = append(ws.ToolResults, toolResultChunk(res.RunID, tr))
		}
		out.Steps = append(out.Steps, ws)
	}
	return out
}

// generate answers POST /api/agents/{id}/generate.
func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	a, req, ok := s.prepareRun(w, r)
	if !ok {
		return
	}
	ctx, progress := r.Context(), (*keel.CallProgress)(nil)
	if d := s.cfg.GenerateTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
		progress = &keel.CallProgress{}
		ctx = keel.WithCallProgress(ctx, progress)
	}
	var res *agent.Result
	var err error
	if req.threadID != "" {
		// One turn of a thread at a time: the one running first ends.
		var unlock func()
		if unlock, req.newThread, err = s.lockTurn(ctx, a, req.resource, req.threadID); err == nil {
			defer unlock()
		} else if ctx.Err() == context.DeadlineExceeded && r.Context().Err() == nil {
			err = &generateTimeout{bound: s.cfg.GenerateTimeout, stalled: "the thread's turn before this one was still running", err: err}
		}
	}
	if err == nil {
		res, err = a.Generate(ctx, req.messages, req.options()...)
		if err != nil && ctx.Err() == context.DeadlineExceeded && r.Context().Err() == nil {
			err = &generateTimeout{bound: s.cfg.GenerateTimeout, stalled: progress.Stalled(time.Now()), err: err}
		}
	}
	if req.threadID != "" {
		// The thread's subscribers (Mastra Studio's chat) see the turn
		// too, in the chunks a stream of it would have carried, once it
		// has ended.
		s.publishTurn(threadKey{agent: a.ID(), resource: req.resource, thread: req.threadID}, a, res, err)
	}
	if err != nil {
		s.writeRunError(w, r, err)
		return
	}
	for _, rec := range res.Recoveries {
		s.logRecovery(r.Context(), a.ID(), res.RunID, res.ThreadID, res.ResourceID, rec)
	}
	writeJSON(w, http.StatusOK, toWireResult(res))
}

// generateTimeout is the failure of a /generate run cut by
// Config.GenerateTimeout: a 504 that says what stalled.
type generateTimeout struct {
	bound   time.Duration
	stalled string
	err     error
}

func (e *generateTimeout) Error() string {
	return fmt.Sprintf("the run did not finish within the server's %v bound for /generate: %s (the turn's input is stored; "+
		"/stream sends the answer as it comes, without this bound)", e.bound, e.stalled)
}

func (e *generateTimeout) Unwrap() error { return e.err }

// publishTurn publishes a turn that ran without a stream, res or its
// failure err, to k's subscribers as the chunks a stream of it would have
// carried: start, keel's recoveries, each step's text, tool calls and
// results, step-finish, and finish (or an error, step-finish and finish).
// A failure found before the input was stored (a bad thread, no input) is
// no turn of the thread, and is not published.
func (s *Server) publishTurn(k threadKey, a *agent.Agent, res *agent.Result, err error) {
	if !s.events.wanted(k) || err != nil && !storedBefore(err) {
		return
	}
	runID := ""
	if res != nil {
		runID = res.RunID
	}
	start := agent.Event{Type: agent.EventStart, RunID: runID, ThreadID: k.thread, ResourceID: k.resource}
	st := newStreamState(&threadSink{hub: &s.events, key: k, run: runID}, a, start)
	st.event(start)
	if err != nil {
		st.fail(err)
		return
	}
	for _, rec := range res.Recoveries {
		st.event(agent.Event{Type: agent.EventRecovery, Recovery: rec})
	}
	for i, step := range res.Steps {
		st.event(agent.Event{Type: agent.EventStepStart, Step: i})
		if step.Text != "" {
			st.event(agent.Event{Type: agent.EventTextDelta, Step: i, Text: step.Text})
		}
		for _, c := range step.ToolCalls {
			st.event(agent.Event{Type: agent.EventToolCall, Step: i, ToolCall: c})
		}
		for _, tr := range step.ToolResults {
			st.event(agent.Event{Type: agent.EventToolResult, Step: i, ToolResult: tr})
		}
		ev := agent.Event{Type: agent.EventStepFinish, Step: i, Text: step.Text, FinishReason: step.FinishReason,
			Usage: step.Usage, Model: step.Model}
		if i == len(res.Steps)-1 {
			ev.ResponseID, ev.ModelID = res.ResponseID, res.ModelID
		}
		st.event(ev)
	}
	st.event(agent.Event{Type: agent.EventFinish, FinishReason: res.FinishReason, Usage: res.Usage, Result: res})
}

// storedBefore reports whether a run that failed with err had stored its
// input first: every failure but those found in the request or the
// thread before anything was stored.
func storedBefore(err error) bool {
	var fu *processor.FileUploadError
	return !errors.Is(err, memory.ErrNotFound) && !errors.Is(err, memory.ErrInvalid) &&
		!errors.Is(err, agent.ErrNoInput) && !errors.Is(err, agent.ErrNoResource) &&
		!errors.Is(err, agent.ErrNoMemory) && !errors.As(err, &fu)
}
