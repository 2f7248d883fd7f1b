package agent

import (
	"context"

	"github.com/keel-go/keel/observe"
)

// A run, each step, each attempt at a model call, each processor hook and
// each tool call is one observe.Op, started inline where the operation
// begins, when an observer is there: the agent's Config.Observer (run
// puts it in the context), else the one the context carries (a
// server's). Without one nothing is made, so that an agent nobody
// observes pays one context lookup per operation.

// hookSpan is a processor hook under way, an observe.Processor op; its op
// is nil when nobody observes.
type hookSpan struct {
	r      *runner
	op     *observe.Op
	span   observe.Span
	before int // the run's recoveries when the hook started
}

// startHook starts a Processor op for one hook of the pipeline.
func (r *runner) startHook(ctx context.Context, hook string, step int) (context.Context, hookSpan) {
	obs := observe.FromContext(ctx)
	if obs == nil {
		return ctx, hookSpan{}
	}
	op := &observe.Op{Kind: observe.Processor, Agent: r.a.cfg.ID, RunID: r.opts.runID, Hook: hook, Step: step}
	ctx, span := obs.Start(ctx, op)
	return ctx, hookSpan{r: r, op: op, span: span, before: r.run.NumRecoveries()}
}

// end ends a hook's op with the recoveries reported since it started.
func (h hookSpan) end(err error) {
	if h.op == nil {
		return
	}
	for _, rec := range h.r.run.RecoveriesSince(h.before) {
		h.op.Recoveries = append(h.op.Recoveries,
			observe.Recovery{Processor: rec.Processor, Action: rec.Action, Cause: rec.CauseKind(), Files: len(rec.Files)})
	}
	h.span.End(err)
}
