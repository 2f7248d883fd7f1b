package processor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// DefaultMaxRetries is the default cap on processor-triggered retries in
// one run.
const DefaultMaxRetries = 3

// Pipeline runs a list of processors' hooks by the runtime's rules. The
// agent builds one per agent; it holds no per-run state and is safe for
// concurrent use.
//
// Every hook is called in the order of the list given to [NewPipeline]
// (the agent passes its input processors, then its error processors).
//
// A run whose context ends has one rule, whichever hook it ends in: the
// answer of an input or LLM-request hook is dropped and the context's
// error returned, and an API error is not retried. So a sandbox that could
// not be resolved, or a file that could not be uploaded, because the run
// was being cancelled, never shows as a NO_SANDBOX error or a
// placeholder: the run ends with context.Canceled or
// context.DeadlineExceeded.
type Pipeline struct {
	inputs     []InputProcessor
	rewriters  []LLMRequestRewriter
	handlers   []APIErrorHandler
	observers  []ResponseObserver
	maxRetries int
}

// NewPipeline returns a pipeline over processors, in order, capping
// processor-triggered retries at maxRetries per run (a negative value
// means none; 0 means [DefaultMaxRetries]).
func NewPipeline(processors []Processor, maxRetries int) *Pipeline {
	p := &Pipeline{maxRetries: max(cmp.Or(maxRetries, DefaultMaxRetries), 0)}
	for _, proc := range processors {
		if h, ok := proc.(InputProcessor); ok {
			p.inputs = append(p.inputs, h)
		}
		if h, ok := proc.(LLMRequestRewriter); ok {
			p.rewriters = append(p.rewriters, h)
		}
		if h, ok := proc.(APIErrorHandler); ok {
			p.handlers = append(p.handlers, h)
		}
		if h, ok := proc.(ResponseObserver); ok {
			p.observers = append(p.observers, h)
		}
	}
	return p
}

// ProcessInputError reports that an input processor stopped the turn.
type ProcessInputError struct {
	Processor string
	Err       error
}

func (e *ProcessInputError) Error() string {
	return fmt.Sprintf("processor %s: process input: %v", e.Processor, e.Err)
}

// Unwrap returns the processor's error.
func (e *ProcessInputError) Unwrap() error { return e.Err }

// ProcessInput runs every input processor in order. The first error stops
// the turn and is returned as a [*ProcessInputError]; a panic counts as an
// error, since a turn must not go on with input nobody checked. Once ctx
// is done, its error is returned.
func (p *Pipeline) ProcessInput(ctx context.Context, in *Input) error {
	for _, h := range p.inputs {
		err := protect(func() error { return h.ProcessInput(ctx, in) })
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			return &ProcessInputError{Processor: h.ID(), Err: err}
		}
	}
	return nil
}

// RewriteLLMRequest runs every LLM-request rewriter in order on req. A
// rewriter's error stops the run and is returned wrapped with its ID; a
// rewriter that panics is logged and skipped, so one faulty processor does
// not break the agent. Once ctx is done, its error is returned.
func (p *Pipeline) RewriteLLMRequest(ctx context.Context, req *LLMRequest) error {
	for _, h := range p.rewriters {
		err := protect(func() error { return h.RewriteLLMRequest(ctx, req) })
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		// protect's panic is its own error, never wrapped: a type
		// assertion finds it without the allocation errors.As's target
		// would cost every call.
		if pe, ok := err.(*panicError); ok {
			logger(req.Run).Error("processor panicked; skipped", "processor", h.ID(), "hook", "llm-request", "panic", pe.value)
		} else if err != nil {
			return fmt.Errorf("processor %s: rewrite llm request: %w", h.ID(), err)
		}
	}
	return nil
}

// HandleAPIError asks the API-error handlers, in order, whether the failed
// call is tried again. The first that answers Retry wins and the rest are
// not asked; the run's retry count then grows by one. A handler that fails
// or panics is logged and skipped. Nothing is retried once the run reached
// the pipeline's retry cap, or when the error is the context's.
func (p *Pipeline) HandleAPIError(ctx context.Context, e *APIErrorEvent) Decision {
	if ctx.Err() != nil || errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		return Decision{}
	}
	if e.Run.RetryCount() >= p.maxRetries {
		return Decision{}
	}
	for _, h := range p.handlers {
		if e.OutputSent {
			if r, ok := h.(RetrierAfterOutput); !ok || !r.RetriesAfterOutput() {
				continue
			}
		}
		var d Decision
		err := protect(func() error {
			var err error
			d, err = h.HandleAPIError(ctx, e)
			return err
		})
		if err != nil {
			logger(e.Run).Error("processor failed; skipped", "processor", h.ID(), "hook", "api-error", "err", err)
			continue
		}
		if d.Retry {
			e.Run.incRetry()
			d.Processor = h.ID()
			return d
		}
	}
	return Decision{}
}

// ObserveResponse tells every response observer, in order, that a call
// succeeded. An observer that panics is logged and skipped.
func (p *Pipeline) ObserveResponse(ctx context.Context, r *LLMResponse) {
	for _, h := range p.observers {
		err := protect(func() error { h.ObserveResponse(ctx, r); return nil })
		if pe, ok := err.(*panicError); ok {
			logger(r.Run).Error("processor panicked; skipped", "processor", h.ID(), "hook", "llm-response", "panic", pe.value)
		}
	}
}

type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// protect runs fn, turning a panic into a *panicError.
func protect(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{value: v}
		}
	}()
	return fn()
}

func logger(r *Run) *slog.Logger {
	if r == nil || r.Logger == nil {
		return slog.Default()
	}
	return r.Logger
}
