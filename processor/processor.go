package processor

import (
	"context"
	"time"

	"github.com/keel-go/keel"
)

// Processor is anything the agent runs around its model calls. It has an
// ID and implements one or more of the hook interfaces: [InputProcessor],
// [LLMRequestRewriter], [APIErrorHandler]. A processor keeps state for one
// run with [StateOf], never in its own fields, so one processor value
// serves many concurrent runs.
type Processor interface {
	// ID identifies the processor, such as "unsupported-file-handler". A
	// processor given to an agent with the ID of a default error processor
	// takes that default's place.
	ID() string
}

// InputProcessor checks or changes the new messages of a turn before they
// are stored and sent. Returning an error stops the turn: nothing is stored
// and the model is not called.
type InputProcessor interface {
	Processor
	ProcessInput(ctx context.Context, in *Input) error
}

// Input is what an [InputProcessor] sees.
type Input struct {
	Run *Run
	// Messages are the new messages of the turn. A processor may replace the
	// slice or its elements (clone a message before changing its parts).
	Messages []keel.Message
}

// LLMRequestRewriter rewrites the prompt of one model call. It runs before
// every call of the run: the first, each retry, and each later tool step.
// An error stops the run and is returned to the caller.
type LLMRequestRewriter interface {
	Processor
	RewriteLLMRequest(ctx context.Context, req *LLMRequest) error
}

// LLMRequest is what an [LLMRequestRewriter] sees.
type LLMRequest struct {
	Run *Run
	// Prompt is the prompt of this call only: a clone, which the rewriter
	// may change freely (messages, and parts of messages, in place). Stored
	// messages are not affected.
	Prompt []keel.Message
	// Step is the zero-based step of the run.
	Step int
	// Model is the model the call goes to; nil when the caller does not
	// say. Processors that learn what a model refuses key it by the
	// model's Provider and Name.
	Model keel.Model
}

// APIErrorHandler decides whether a failed model call is tried again.
type APIErrorHandler interface {
	Processor
	HandleAPIError(ctx context.Context, e *APIErrorEvent) (Decision, error)
}

// APIErrorEvent is what an [APIErrorHandler] sees.
type APIErrorEvent struct {
	Run *Run
	// Err is the model's error, unchanged.
	Err error
	// Prompt is the prompt of the failed call, after rewriting. Read-only.
	Prompt []keel.Message
	// Step is the zero-based step of the run.
	Step int
	// OutputSent reports that the failed call had already streamed output
	// to the caller. Only handlers implementing [RetrierAfterOutput] that
	// answer true are asked then.
	OutputSent bool
	// Model is the model that failed; nil when the caller does not say.
	Model keel.Model
}

// ResponseObserver is told of every model call that succeeded, with the
// prompt it was sent. It changes nothing: the answer is the model's. The
// unsupported-file handler learns from it which file types a model takes.
type ResponseObserver interface {
	Processor
	ObserveResponse(ctx context.Context, r *LLMResponse)
}

// LLMResponse is what a [ResponseObserver] sees.
type LLMResponse struct {
	Run *Run
	// Prompt is the prompt of the call that succeeded, after rewriting.
	// Read-only.
	Prompt []keel.Message
	// Step is the zero-based step of the run.
	Step int
	// Model is the model that answered; nil when the caller does not say.
	Model keel.Model
}

// Decision is an [APIErrorHandler]'s answer.
type Decision struct {
	// Retry asks for the same step to be tried again.
	Retry bool
	// Delay is how long to wait first. The wait ends early, with the
	// context's error, when the run's context is cancelled.
	Delay time.Duration
	// Processor is the ID of the handler that decided, set by
	// [Pipeline.HandleAPIError]; handlers need not set it.
	Processor string
}

// RetrierAfterOutput is implemented by API-error handlers that may retry a
// streamed call after some of its output was already sent.
type RetrierAfterOutput interface {
	RetriesAfterOutput() bool
}
