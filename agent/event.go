package agent

import (
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
)

// EventType names the kind of an [Event].
type EventType string

// The events of a stream, in the order they can come.
const (
	// EventStart opens the run: RunID, ThreadID, ResourceID.
	EventStart EventType = "start"
	// EventStepStart opens a step (one model call, retries included).
	EventStepStart EventType = "step-start"
	// EventTextDelta carries text as the model writes it.
	EventTextDelta EventType = "text-delta"
	// EventToolCall carries a tool call of the model.
	EventToolCall EventType = "tool-call"
	// EventToolResult carries the result of a tool call.
	EventToolResult EventType = "tool-result"
	// EventRecovery tells that a processor acted to keep the run going
	// (Recovery), for example a refused file uploaded to the sandbox.
	EventRecovery EventType = "recovery"
	// EventRetry tells that the step's model call failed and is tried
	// again (Err). When Discard is set, the text and tool calls streamed for
	// the failed attempt are void.
	EventRetry EventType = "retry"
	// EventFallback tells that the step's model call failed (Err) in a
	// way the error processors could not repair, and that the next model
	// of the agent's list (Model) takes over, from the prompt as the user
	// sent it. When Discard is set, the output streamed for the failed
	// model is void.
	EventFallback EventType = "fallback"
	// EventStepFinish closes a step: FinishReason, Usage, Text, the
	// step's ResponseID and ModelID, and the Model that answered.
	EventStepFinish EventType = "step-finish"
	// EventFinish closes a successful run: Result.
	EventFinish EventType = "finish"
)

// Event is one event of [Agent.Stream].
type Event struct {
	Type EventType
	// Step is the zero-based step the event belongs to.
	Step int
	// RunID, ThreadID and ResourceID are set on EventStart.
	RunID, ThreadID, ResourceID string
	// Text is a delta (EventTextDelta) or the step's text (EventStepFinish).
	Text       string
	ToolCall   keel.ToolCallPart
	ToolResult keel.ToolResultPart
	Recovery   processor.Recovery
	// Err is the error that caused an EventRetry or EventFallback.
	Err error
	// Model is the model, "provider/name", that answered the step
	// (EventStepFinish) or takes over (EventFallback).
	Model string
	// Delay is how long the run waits before it makes the call again, on
	// an EventRetry; 0 means at once.
	Delay time.Duration
	// Discard is set on an EventRetry or EventFallback after output of
	// the failed attempt was already sent.
	Discard      bool
	FinishReason keel.FinishReason
	Usage        keel.Usage
	// ResponseID and ModelID are the step's model call's, as the provider
	// gave them (EventStepFinish).
	ResponseID, ModelID string
	// Result is set on EventFinish.
	Result *Result
}

// Result is what a run produced.
type Result struct {
	RunID, ThreadID, ResourceID string
	// Text is the final step's text.
	Text         string
	FinishReason keel.FinishReason
	// Usage is summed over every call of the run.
	Usage keel.Usage
	Steps []Step
	// ToolCalls and ToolResults are those of every step, in order.
	ToolCalls   []keel.ToolCallPart
	ToolResults []keel.ToolResultPart
	// Input are the turn's messages as stored (IDs set), including any a
	// processor added.
	Input []keel.Message
	// Messages are the reply's messages (assistant and tool), as stored.
	Messages []keel.Message
	// Recoveries tell what processors did to keep the run going.
	Recoveries []processor.Recovery
	// ResponseID and ModelID are the last call's, as the provider gave them.
	ResponseID, ModelID string
	// Model is the agent's model, "provider/name", that answered the last
	// call: with a list of models ([Config].Models), the one the run fell
	// back to, if it did. Each stored assistant message names its own in
	// its metadata ([MetadataModel]).
	Model string

	// title is the titling the run's thread still needs (see
	// Config.GenerateTitle), done once the result is delivered.
	title *titleJob
}

// Step is one step of a run: a model call (after any retries) and the tool
// calls it asked for.
type Step struct {
	Text         string
	ToolCalls    []keel.ToolCallPart
	ToolResults  []keel.ToolResultPart
	FinishReason keel.FinishReason
	Usage        keel.Usage
	// Attempts is the number of model calls the step took (1 + retries),
	// on every model it went to.
	Attempts int
	// Model is the model, "provider/name", that answered.
	Model string
}
