package agent

import (
	"context"
	"errors"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/observe"
	"github.com/keel-go/keel/processor"
)

// The agent's seams for an observe.Observer: a run, each step, each
// attempt at a model call, each processor hook and each tool call is one
// observe.Op. Each wrapper looks the observer up once and, without one,
// calls what it wraps and nothing else, so that an agent nobody observes
// pays one context lookup per operation.

// observer is the agent's Config.Observer, else the one ctx carries (a
// server's).
func (a *Agent) observer(ctx context.Context) observe.Observer {
	if a.cfg.Observer != nil {
		return a.cfg.Observer
	}
	return observe.FromContext(ctx)
}

// observedRun is run, reported as a Run op. The run's ID is chosen here,
// so that the op has it from the start.
func (a *Agent) observedRun(ctx context.Context, input []keel.Message, optFns []RunOption, emit func(Event) bool) (*Result, error) {
	obs := a.observer(ctx)
	if obs == nil {
		return a.run(ctx, input, optFns, emit)
	}
	var o runOptions
	for _, fn := range optFns {
		fn(&o)
	}
	if o.runID == "" {
		o.runID = newID("run_")
		optFns = append(optFns[:len(optFns):len(optFns)], WithRunID(o.runID))
	}
	ctx = observe.NewContext(ctx, obs)
	op := &observe.Op{Kind: observe.Run, Agent: a.cfg.ID, RunID: o.runID, ThreadID: o.threadID, ResourceID: o.resourceID,
		Streaming: emit != nil}
	ctx, span := obs.Start(ctx, op)
	res, err := a.run(ctx, input, optFns, emit)
	if res != nil {
		op.Steps, op.Usage, op.FinishReason = len(res.Steps), res.Usage, res.FinishReason
	}
	span.End(err)
	return res, err
}

// observedStep is step, reported as a Step op.
func (r *runner) observedStep(ctx context.Context, step int) (Step, *keel.Response, error) {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return r.step(ctx, step)
	}
	op := &observe.Op{Kind: observe.Step, Agent: r.a.cfg.ID, RunID: r.opts.runID, Step: step}
	ctx, span := obs.Start(ctx, op)
	st, resp, err := r.step(ctx, step)
	op.Attempt, op.FinishReason, op.Usage = st.Attempts, st.FinishReason, st.Usage
	span.End(err)
	return st, resp, err
}

// observedCall is call, one attempt reported as a ModelCall op.
func (r *runner) observedCall(ctx context.Context, step, attempt int, req *keel.Request) (*keel.Response, bool, error) {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return r.call(ctx, step, req)
	}
	m := r.slot().model // the model this attempt calls: a fallback's, once the run moved on
	op := &observe.Op{Kind: observe.ModelCall, Agent: r.a.cfg.ID, RunID: r.opts.runID, Provider: m.Provider(), Model: m.Name(),
		Step: step, Attempt: attempt, Streaming: r.emit != nil}
	ctx, span := obs.Start(ctx, op)
	resp, sent, err := r.call(ctx, step, req)
	if resp != nil {
		op.ResponseModel, op.ResponseID, op.FinishReason, op.Usage = resp.ModelID, resp.ID, resp.FinishReason, resp.Usage
	}
	op.OutputSent = sent
	if errors.Is(err, errStopped) {
		err = context.Canceled // the consumer left: the call was cut, it did not fail
	}
	span.End(err)
	return resp, sent, err
}

// processInput is the pipeline's ProcessInput, reported as a Processor op.
func (r *runner) processInput(ctx context.Context, in *processor.Input) error {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return r.a.pipeline.ProcessInput(ctx, in)
	}
	op, ctx, span, before := r.startHook(ctx, obs, observe.HookInput, -1)
	err := r.a.pipeline.ProcessInput(ctx, in)
	r.endHook(op, span, before, err)
	return err
}

// rewrite is p's RewriteLLMRequest, reported as a Processor op.
func (r *runner) rewrite(ctx context.Context, p *processor.Pipeline, req *processor.LLMRequest) error {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return p.RewriteLLMRequest(ctx, req)
	}
	op, ctx, span, before := r.startHook(ctx, obs, observe.HookLLMRequest, req.Step)
	err := p.RewriteLLMRequest(ctx, req)
	r.endHook(op, span, before, err)
	return err
}

// handleAPIError is p's HandleAPIError, reported as a Processor op with
// the decision.
func (r *runner) handleAPIError(ctx context.Context, p *processor.Pipeline, e *processor.APIErrorEvent) processor.Decision {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return p.HandleAPIError(ctx, e)
	}
	op, ctx, span, before := r.startHook(ctx, obs, observe.HookAPIError, e.Step)
	d := p.HandleAPIError(ctx, e)
	op.Retry, op.Delay, op.Decider, op.OutputSent = d.Retry, d.Delay, d.Processor, e.OutputSent
	r.endHook(op, span, before, nil)
	return d
}

func (r *runner) startHook(ctx context.Context, obs observe.Observer, hook string, step int) (*observe.Op, context.Context, observe.Span, int) {
	op := &observe.Op{Kind: observe.Processor, Agent: r.a.cfg.ID, RunID: r.opts.runID, Hook: hook, Step: step}
	ctx, span := obs.Start(ctx, op)
	return op, ctx, span, len(r.run.Recoveries())
}

// endHook ends a hook's op with the recoveries reported since it started.
func (r *runner) endHook(op *observe.Op, span observe.Span, before int, err error) {
	recs := r.run.Recoveries()
	if before > len(recs) {
		before = 0 // the run forgot what it had reported: it moved to another model
	}
	for _, rec := range recs[before:] {
		o := observe.Recovery{Processor: rec.Processor, Action: rec.Action, Files: len(rec.Files)}
		if rec.Cause != nil {
			o.Cause = rec.Cause.Kind
		}
		op.Recoveries = append(op.Recoveries, o)
	}
	span.End(err)
}

// observedTool is execTool, reported as a ToolCall op.
func (r *runner) observedTool(ctx context.Context, call keel.ToolCallPart) (keel.ToolResultPart, []keel.FilePart) {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return r.a.execTool(ctx, r.run, r.tools, call)
	}
	op := &observe.Op{Kind: observe.ToolCall, Agent: r.a.cfg.ID, RunID: r.opts.runID, Tool: call.Name, ToolCallID: call.ID}
	ctx, span := obs.Start(ctx, op)
	tr, files := r.a.execTool(ctx, r.run, r.tools, call)
	op.ToolFailed = tr.IsError
	span.End(nil)
	return tr, files
}
