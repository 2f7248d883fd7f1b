package observe

import (
	"context"
	"net/http"
	"time"

	"github.com/keel-go/keel"
)

// Kind says what an [Op] is.
type Kind uint8

// The kinds of operation keel reports.
const (
	// Request is an HTTP request to the server: Method, Header, then
	// Route and Status before End.
	Request Kind = iota + 1
	// Run is one Generate or Stream of an agent: Agent, RunID, ThreadID,
	// ResourceID, Streaming; Steps, Usage and FinishReason before End.
	Run
	// Step is one step of a run (a model call, retried as the processors
	// decide, then the tools it asked for): Step.
	Step
	// ModelCall is one attempt at a model call: Provider, Model, Step,
	// Attempt, Streaming; the response's ResponseModel, ResponseID,
	// FinishReason and Usage, and OutputSent, before End.
	ModelCall
	// Processor is one run of a processor hook that may decide the run's
	// course: Hook; the Decider, Retry and Delay of an API-error hook, and
	// the Recoveries the hook reported, before End.
	Processor
	// ToolCall is one tool call: Tool, ToolCallID; ToolFailed before End.
	ToolCall
	// Command is one sandbox command: Sandbox; ExitCode before End.
	Command
	// Upload is one file written into a sandbox: Sandbox, Path, Size;
	// Written before End.
	Upload
)

var kindNames = [...]string{"unknown", "request", "run", "step", "model-call", "processor", "tool-call", "command", "upload"}

// String returns the kind's name, such as "model-call".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return kindNames[0]
}

// The hooks of a [Processor] op.
const (
	HookInput      = "input"
	HookLLMRequest = "llm-request"
	HookAPIError   = "api-error"
)

// Op is one operation keel reports to an [Observer]. Which fields mean
// something depends on Kind (see the kinds). The code that starts an Op
// fills the fields known at the start, then those known at the end before
// it calls [Span.End]; an Observer reads them then, and must not keep the
// Op after End returns nor change it.
type Op struct {
	Kind Kind

	// Method is the HTTP method, Route the path template of the route
	// the request matched ("/api/agents/{id}/generate"; "" when it
	// matched none, such as a request refused before routing), Header the request's headers
	// (for a trace context it continues), and Status the status the
	// client saw: 499 when it went away first.
	Method string
	Route  string
	Header http.Header
	Status int

	// Agent, RunID, ThreadID and ResourceID say whose run it is; ThreadID
	// and ResourceID may be empty. Streaming is true for a Stream.
	Agent      string
	RunID      string
	ThreadID   string
	ResourceID string
	Streaming  bool

	// Step is the step's index in the run, from 0; Steps the number of
	// steps a run made. Attempt counts a model call's attempts within its
	// step, from 1.
	Step    int
	Steps   int
	Attempt int

	// Provider and Model name the model called (keel.Model's Provider and
	// Name); ResponseModel and ResponseID are what its answer said.
	// FinishReason and Usage are the answer's (a run's: its last step's
	// reason and the sum of its usage). OutputSent reports that a failed
	// streamed call had sent output before it failed.
	Provider      string
	Model         string
	ResponseModel string
	ResponseID    string
	FinishReason  keel.FinishReason
	Usage         keel.Usage
	OutputSent    bool

	// Hook is the processor hook: [HookInput], [HookLLMRequest] or
	// [HookAPIError]. For an API-error hook, Retry reports that the call
	// is tried again, after Delay, as Decider (a processor's ID) chose.
	// Recoveries are what processors reported doing during the hook.
	Hook       string
	Decider    string
	Retry      bool
	Delay      time.Duration
	Recoveries []Recovery

	// Tool and ToolCallID name a tool call; ToolFailed reports a failed
	// result (the model is shown the error, the run goes on).
	Tool       string
	ToolCallID string
	ToolFailed bool

	// Sandbox is the sandbox's ID; ExitCode a command's exit code (-1
	// when it did not finish); Path and Size an upload's path in the
	// sandbox and size in bytes, and Written false when the same file was
	// there already.
	Sandbox  string
	ExitCode int
	Path     string
	Size     int64
	Written  bool
}

// Recovery is what a processor reported doing to keep a run going: its
// ID, its action (such as "uploaded" or "placeholder"), the kind of
// failure it answered ("api-error", "unsupported-functionality",
// "remembered-refusal"; "none" when it acted on its own rule, not a
// failure: the processor package's Recovery.CauseKind) and how many files
// it concerned.
type Recovery struct {
	Processor string
	Action    string
	Cause     string
	Files     int
}

// Observer is told what keel does. Start is called when an operation
// begins, with the context it runs under; the context it returns is the
// one the operation goes on with (so that operations started under it are
// its children, as a trace span's are), and the [Span] is ended once when
// the operation ends. Implementations must be safe for concurrent use and
// quick: they run on the request's path.
type Observer interface {
	Start(ctx context.Context, op *Op) (context.Context, Span)
}

// Span is an operation under way. End is called once, with the
// operation's error (nil when it succeeded), after the Op's end fields
// are set.
type Span interface {
	End(err error)
}

type observerKey struct{}

// NewContext returns ctx carrying o: code that has only a context (a
// sandbox upload, a tool, an agent given no Observer of its own) reports
// to [FromContext]'s observer. A nil o returns ctx unchanged.
func NewContext(ctx context.Context, o Observer) context.Context {
	if o == nil {
		return ctx
	}
	return context.WithValue(ctx, observerKey{}, o)
}

// FromContext returns the Observer ctx carries, or nil.
func FromContext(ctx context.Context) Observer {
	o, _ := ctx.Value(observerKey{}).(Observer)
	return o
}

// Start starts op with the observer ctx carries: it is FromContext(ctx)'s
// Start, or, without one, ctx itself and a Span whose End does nothing.
// Callers on a hot path check [FromContext] first, so that nothing is
// made when nobody observes.
func Start(ctx context.Context, op *Op) (context.Context, Span) {
	if o := FromContext(ctx); o != nil {
		return o.Start(ctx, op)
	}
	return ctx, nopSpan{}
}

type nopSpan struct{}

func (nopSpan) End(error) {}
