package server

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"strconv"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
)

// The types of keel's own stream events. Clients pass unknown types to the
// application unharmed.
const (
	// EventRecovery tells that a processor acted to keep the run going;
	// its payload is a [processor.Recovery].
	EventRecovery = "data-keel-recovery"
	// EventRetry tells that the model call failed after some output was
	// streamed and is tried again: the text and tool calls streamed since
	// the last step-start are void.
	EventRetry = "data-keel-retry"
	// EventFallback tells that the model call failed in a way the
	// processors could not repair and that the agent's next model takes
	// over (payload {model, discard, error}); with discard, the text and
	// tool calls streamed since the last step-start are void.
	EventFallback = "data-keel-fallback"
)

type startPayload struct {
	ID        string `json:"id"`
	MessageID string `json:"messageId"`
}

type stepStartPayload struct {
	MessageID string     `json:"messageId"`
	Request   struct{}   `json:"request"`
	Warnings  []struct{} `json:"warnings"`
}

type textPayload struct {
	ID   string `json:"id"`
	Text string `json:"text,omitempty"`
}

type stepResult struct {
	Reason      keel.FinishReason `json:"reason"`
	IsContinued bool              `json:"isContinued"`
}

type stepOutput struct {
	Text      string      `json:"text"`
	ToolCalls []wireChunk `json:"toolCalls"`
	Usage     wireUsage   `json:"usage"`
}

type finishMetadata struct {
	ID      string `json:"id"`
	ModelID string `json:"modelId"`
	// Model is the agent's model that answered, "provider/name".
	Model string `json:"model,omitempty"`
}

type fallbackPayload struct {
	Model   string    `json:"model"`
	Discard bool      `json:"discard"`
	Error   wireError `json:"error"`
}

type finishPayload struct {
	MessageID  string         `json:"messageId"`
	StepResult stepResult     `json:"stepResult"`
	Output     stepOutput     `json:"output"`
	Metadata   finishMetadata `json:"metadata"`
	Recoveries []wireRecovery `json:"recoveries,omitempty"`
}

type errorPayload struct {
	Error wireError `json:"error"`
}

type wireError struct {
	Message string `json:"message"`
	Name    string `json:"name"`
}

type retryPayload struct {
	Discard bool      `json:"discard"`
	Reason  string    `json:"reason"`
	Error   wireError `json:"error"`
}

func toWireError(err error) wireError {
	var api *keel.APICallError
	var unsup *keel.UnsupportedFunctionalityError
	switch {
	case errors.As(err, &api):
		return wireError{Message: err.Error(), Name: "APICallError"}
	case errors.As(err, &unsup):
		return wireError{Message: err.Error(), Name: "UnsupportedFunctionalityError"}
	default:
		return wireError{Message: err.Error(), Name: "Error"}
	}
}

// stream answers POST /api/agents/{id}/stream with Server-Sent Events. A
// failure before the first event is a JSON error like generate's; after
// it, an error event and a finish with reason "error", status 200.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	a, req, ok := s.prepareRun(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	if req.threadID != "" {
		// One turn of a thread at a time: the one running first ends.
		unlock, missing, err := s.lockTurn(ctx, a, req.resource, req.threadID)
		if err != nil {
			s.writeRunError(w, r, err)
			return
		}
		defer unlock()
		req.newThread = missing
	}
	next, stop := iter.Pull2(a.Stream(ctx, req.messages, req.options()...))
	defer stop()
	ev, err, ok := next()
	if !ok {
		s.writeRunError(w, r, errors.New("server: stream ended before it started"))
		return
	}
	if err != nil {
		s.writeRunError(w, r, err)
		return
	}
	sw := openSSE(w, s.cfg.KeepAlive, cancel)
	defer sw.close()
	// The thread's subscribers (Studio's chat) see the run too.
	var sink eventSink = sw
	if ev.ThreadID != "" {
		sink = teeSink{sw, &threadSink{hub: &s.events, key: threadKey{agent: a.ID(), resource: ev.ResourceID, thread: ev.ThreadID}, run: ev.RunID}}
	}
	if !s.relay(r.Context(), newStreamState(sink, a, ev), ev, err, next) {
		cancel()
		return
	}
	sw.done()
}

// relay sends a run's events, from its first (ev, err) on, as Mastra's
// chunks through st, and logs each recovery; false means st's sink is
// gone. A failure ends the chunks with an error and a finish.
func (s *Server) relay(ctx context.Context, st *streamState, ev agent.Event, err error, next func() (agent.Event, error, bool)) bool {
	for ok := true; ok; ev, err, ok = next() {
		if err != nil {
			st.fail(err)
			return true
		}
		if ev.Type == agent.EventRecovery {
			s.logRecovery(ctx, st.agentID, st.runID, st.threadID, st.resourceID, ev.Recovery)
		}
		if !st.event(ev) {
			return false
		}
	}
	return true
}

// eventSink takes a stream's chunks: an SSE response, or the subscribers
// of a thread. event returning false means nobody reads any more.
type eventSink interface {
	event(v any) bool
}

// newStreamState is the state of a run of a whose first event is ev.
func newStreamState(sink eventSink, a *agent.Agent, ev agent.Event) *streamState {
	st := &streamState{sw: sink, agentID: a.ID(), messageID: memory.NewID(), runID: ev.RunID,
		threadID: ev.ThreadID, resourceID: ev.ResourceID}
	if m := a.Config().Model; m != nil {
		st.modelName = m.Name()
	}
	return st
}

// streamState turns agent events into Mastra's chunks.
type streamState struct {
	sw                                              eventSink
	agentID, messageID, runID, threadID, resourceID string
	modelName                                       string
	textOpen                                        bool
	textN                                           int
	stepText                                        string
}

func (st *streamState) send(typ string, payload any) bool {
	return st.sw.event(wireChunk{Type: typ, RunID: st.runID, From: "AGENT", Payload: payload})
}

func (st *streamState) closeText() bool {
	if !st.textOpen {
		return true
	}
	st.textOpen = false
	return st.send("text-end", textPayload{ID: st.textID()})
}

func (st *streamState) textID() string { return "txt-" + strconv.Itoa(st.textN) }

// metadata is what step-finish and finish carry of a model call: its
// response id and model, the agent's model name when the provider gave
// none.
func (st *streamState) metadata(responseID, modelID, model string) finishMetadata {
	if modelID == "" {
		modelID = st.modelName
		if _, name, ok := strings.Cut(model, "/"); ok {
			modelID = name // the model the run fell back to
		}
	}
	return finishMetadata{ID: responseID, ModelID: modelID, Model: model}
}

// event sends the chunks of one agent event; false means the client is
// gone.
func (st *streamState) event(ev agent.Event) bool {
	switch ev.Type {
	case agent.EventStart:
		return st.send("start", startPayload{ID: st.agentID, MessageID: st.messageID})
	case agent.EventStepStart:
		return st.send("step-start", stepStartPayload{MessageID: st.messageID, Warnings: []struct{}{}})
	case agent.EventTextDelta:
		if !st.textOpen {
			st.textOpen = true
			st.textN++
			if !st.send("text-start", textPayload{ID: st.textID()}) {
				return false
			}
		}
		return st.send("text-delta", textPayload{ID: st.textID(), Text: ev.Text})
	case agent.EventToolCall:
		return st.closeText() && st.send("tool-call", toolCallChunk(st.runID, ev.ToolCall).Payload)
	case agent.EventToolResult:
		return st.closeText() && st.send("tool-result", toolResultChunk(st.runID, ev.ToolResult).Payload)
	case agent.EventRecovery:
		return st.send(EventRecovery, toWireRecovery(ev.Recovery))
	case agent.EventRetry:
		if !ev.Discard {
			return true // nothing was shown, so the retry is invisible
		}
		return st.closeText() && st.send(EventRetry, retryPayload{Discard: true,
			Reason: "the model call failed after output was sent; that output is void and the call is tried again",
			Error:  toWireError(ev.Err)})
	case agent.EventFallback:
		return st.closeText() && st.send(EventFallback, fallbackPayload{Model: ev.Model, Discard: ev.Discard, Error: toWireError(ev.Err)})
	case agent.EventStepFinish:
		st.stepText = ev.Text
		return st.closeText() && st.send("step-finish", finishPayload{
			MessageID:  st.messageID,
			StepResult: stepResult{Reason: ev.FinishReason, IsContinued: ev.FinishReason == keel.FinishToolCalls},
			Output:     stepOutput{Text: ev.Text, ToolCalls: []wireChunk{}, Usage: toWireUsage(ev.Usage)},
			Metadata:   st.metadata(ev.ResponseID, ev.ModelID, ev.Model),
		})
	case agent.EventFinish:
		p := finishPayload{MessageID: st.messageID, StepResult: stepResult{Reason: ev.FinishReason},
			Output: stepOutput{Text: st.stepText, ToolCalls: []wireChunk{}, Usage: toWireUsage(ev.Usage)}}
		if res := ev.Result; res != nil {
			p.Output.Text = res.Text
			p.Metadata = st.metadata(res.ResponseID, res.ModelID, res.Model)
			if len(res.Recoveries) > 0 {
				p.Recoveries = toWireRecoveries(res.Recoveries)
			}
			for _, c := range res.ToolCalls {
				p.Output.ToolCalls = append(p.Output.ToolCalls, toolCallChunk(st.runID, c))
			}
		}
		return st.closeText() && st.send("finish", p)
	}
	return true
}

// fail ends an open stream with an error event, then a step-finish and a
// finish with reason "error".
func (st *streamState) fail(err error) {
	p := finishPayload{MessageID: st.messageID, StepResult: stepResult{Reason: keel.FinishError},
		Output: stepOutput{ToolCalls: []wireChunk{}}}
	_ = st.closeText() &&
		st.send("error", errorPayload{Error: toWireError(err)}) &&
		st.send("step-finish", p) &&
		st.send("finish", p)
}
