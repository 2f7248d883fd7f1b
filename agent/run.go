package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/observe"
	"github.com/keel-go/keel/processor"
)

// Errors of a run that are the caller's to fix.
var (
	// ErrNoInput: the run was given no message.
	ErrNoInput = errors.New("agent: no input messages")
	// ErrNoMemory: a thread was named but the agent has no Memory.
	ErrNoMemory = errors.New("agent: a thread was given but the agent has no memory")
	// ErrNoResource: a thread was named without the resource that owns it.
	ErrNoResource = errors.New("agent: a thread needs a resource (WithResource)")
)

// errStopped ends a run whose stream consumer stopped reading.
var errStopped = errors.New("agent: stream consumer stopped")

// Generate runs the agent on input and returns the whole result. Errors of
// the model surface unchanged once the processors gave up, so errors.As
// finds the provider's error; the turn's input is stored even then.
func (a *Agent) Generate(ctx context.Context, input []keel.Message, opts ...RunOption) (*Result, error) {
	res, err := a.run(ctx, input, opts, nil)
	if err == nil {
		a.titleAfterTurn(ctx, res)
	}
	return res, err
}

// Stream runs the agent on input and yields its events as they happen. The
// last event of a successful run is EventFinish with the Result; a failed
// run ends with its error instead. Stopping the iteration early cancels the
// run. Stream and Generate run the same loop.
func (a *Agent) Stream(ctx context.Context, input []keel.Message, opts ...RunOption) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stopped := false
		emit := func(ev Event) bool {
			if stopped {
				return false
			}
			if !yield(ev, nil) {
				stopped = true
				cancel()
			}
			return !stopped
		}
		res, err := a.run(ctx, input, opts, emit)
		if stopped {
			return
		}
		if err != nil {
			yield(Event{}, err)
			return
		}
		if yield(Event{Type: EventFinish, Step: len(res.Steps) - 1, FinishReason: res.FinishReason, Usage: res.Usage, Result: res}, nil) {
			// After the finish, so that the consumer has the whole answer
			// first.
			a.titleAfterTurn(ctx, res)
		}
	}
}

// runner is the state of one run of the loop.
type runner struct {
	a       *Agent
	emit    func(Event) bool // nil for Generate
	opts    runOptions
	run     *processor.Run
	system  []keel.Message
	history []keel.Message // the thread's messages before this turn
	input   []keel.Message // the turn's messages, as stored
	steps   []keel.Message // assistant and tool messages of this run

	tools toolbox // the tools of this run, read at its start
	cur   int     // the model of r.a.models the calls go to

	mu      sync.Mutex
	pending []processor.Recovery
}

// run is one run of the loop, an observe.Run op. Every operation of the
// run starts its op where it begins, when an observer is there to see it
// (see observe.go): without one nothing is made.
func (a *Agent) run(ctx context.Context, input []keel.Message, optFns []RunOption, emit func(Event) bool) (res *Result, err error) {
	var o runOptions
	for _, fn := range optFns {
		fn(&o)
	}
	if o.maxSteps <= 0 {
		o.maxSteps = a.cfg.MaxSteps
	}
	if o.runID == "" {
		o.runID = newID("run_")
	}
	ctx = observe.NewContext(ctx, a.cfg.Observer) // else a server's, which ctx carries
	if obs := observe.FromContext(ctx); obs != nil {
		op := observe.NewOp()
		*op = observe.Op{Kind: observe.Run, Agent: a.cfg.ID, RunID: o.runID, ThreadID: o.threadID, ResourceID: o.resourceID,
			Streaming: emit != nil}
		var span observe.Span
		ctx, span = obs.Start(ctx, op)
		defer func() {
			if res != nil {
				op.Steps, op.Usage, op.FinishReason = len(res.Steps), res.Usage, res.FinishReason
			}
			span.End(err)
			observe.ReleaseOp(op)
		}()
	}
	if len(input) == 0 {
		return nil, ErrNoInput
	}
	history, missing, first, err := a.loadThread(ctx, o)
	if err != nil {
		return nil, err
	}
	r := &runner{a: a, emit: emit, opts: o, tools: a.toolbox()}
	r.run = processor.NewRun(o.runID, r.onRecovery)
	r.run.AgentID, r.run.ThreadID, r.run.ResourceID = a.cfg.ID, o.threadID, o.resourceID
	r.run.Workspace, r.run.Logger = a.cfg.Workspace, a.logger
	if a.cfg.Memory != nil && o.threadID != "" {
		r.run.UpdateStored = r.updateStored
	}
	r.run.Messages = concat(history, input)
	if a.cfg.Instructions != "" {
		r.system = []keel.Message{keel.SystemText(a.cfg.Instructions)}
	}

	in := &processor.Input{Run: r.run, Messages: input}
	hctx, hook := r.startHook(ctx, observe.HookInput, -1)
	err = a.pipeline.ProcessInput(hctx, in)
	hook.end(err)
	if err != nil {
		return nil, err
	}
	// The input is stored before the model is called, so that nothing
	// the user sent is lost whatever the model does, and the model never
	// sees a thread the caller may not use.
	if r.history, r.input, err = a.saveInput(ctx, o, missing, history, in.Messages); err != nil {
		return nil, err
	}
	r.run.Messages = concat(r.history, r.input)
	if first && !missing {
		a.defaultTitle(ctx, o, r.input)
	}
	if !r.send(Event{Type: EventStart, RunID: o.runID, ThreadID: o.threadID, ResourceID: o.resourceID}) {
		return nil, errStopped
	}

	res = &Result{RunID: o.runID, ThreadID: o.threadID, ResourceID: o.resourceID}
	for step := 0; ; step++ {
		st, resp, err := r.step(ctx, step)
		if err != nil {
			r.keepRecoveries(ctx)
			return nil, err
		}
		res.Steps = append(res.Steps, st)
		res.Usage = res.Usage.Add(st.Usage)
		res.ToolCalls = append(res.ToolCalls, st.ToolCalls...)
		res.ToolResults = append(res.ToolResults, st.ToolResults...)
		res.Text, res.FinishReason = st.Text, st.FinishReason
		res.ResponseID, res.ModelID, res.Model = resp.ID, resp.ModelID, st.Model
		if len(st.ToolCalls) == 0 || step+1 >= o.maxSteps {
			break
		}
	}

	added := r.run.AddedMessages()
	res.Input = concat(r.input, nil)
	reply, err := a.save(ctx, o, concat(added, r.reply()))
	if err != nil {
		return nil, err
	}
	res.Input = append(res.Input, reply[:len(added)]...)
	res.Messages = reply[len(added):]
	res.Recoveries = r.run.Recoveries()
	if first && a.cfg.GenerateTitle {
		res.title = &titleJob{opts: o, input: r.input}
	}
	return res, nil
}

// step makes one model call, retrying as the processors decide, then runs
// the tools it asked for.
func (r *runner) step(ctx context.Context, step int) (st Step, resp *keel.Response, err error) {
	if obs := observe.FromContext(ctx); obs != nil {
		op := observe.NewOp()
		*op = observe.Op{Kind: observe.Step, Agent: r.a.cfg.ID, RunID: r.opts.runID, Step: step}
		var span observe.Span
		ctx, span = obs.Start(ctx, op)
		defer func() {
			op.Attempt, op.FinishReason, op.Usage = st.Attempts, st.FinishReason, st.Usage
			span.End(err)
			observe.ReleaseOp(op)
		}()
	}
	if !r.send(Event{Type: EventStepStart, Step: step}) {
		return Step{}, nil, errStopped
	}
	for {
		st.Attempts++
		prompt := r.prompt()
		slot := r.slot()
		lreq := &processor.LLMRequest{Run: r.run, Prompt: keel.CloneMessages(prompt), Step: step, Model: slot.model}
		hctx, hook := r.startHook(ctx, observe.HookLLMRequest, step)
		err := slot.pipeline.RewriteLLMRequest(hctx, lreq)
		hook.end(err)
		r.flushRecoveries(step)
		if err != nil {
			return st, nil, err
		}
		if err := ctx.Err(); err != nil {
			return st, nil, err
		}
		req := &keel.Request{Messages: lreq.Prompt, Tools: r.tools.defs}
		var sent bool
		resp, sent, err = r.call(ctx, step, st.Attempts, req)
		if err == nil {
			slot.pipeline.ObserveResponse(ctx, &processor.LLMResponse{Run: r.run, Prompt: lreq.Prompt, Step: step, Model: slot.model})
			break
		}
		if errors.Is(err, errStopped) {
			return st, nil, err
		}
		hctx, hook = r.startHook(ctx, observe.HookAPIError, step)
		d := slot.pipeline.HandleAPIError(hctx, &processor.APIErrorEvent{
			Run: r.run, Err: err, Prompt: lreq.Prompt, Step: step, OutputSent: sent, Model: slot.model,
		})
		if hook.op != nil {
			hook.op.Retry, hook.op.Delay, hook.op.Decider, hook.op.OutputSent = d.Retry, d.Delay, d.Processor, sent
		}
		hook.end(nil)
		if !d.Retry {
			if next, ferr := r.fallBack(ctx, step, err, sent); ferr != nil || next {
				if ferr != nil {
					return st, nil, ferr
				}
				continue
			}
			return st, nil, err
		}
		if !r.send(Event{Type: EventRetry, Step: step, Err: err, Delay: d.Delay, Discard: sent}) {
			return st, nil, errStopped
		}
		if err := sleep(ctx, d.Delay); err != nil {
			return st, nil, err
		}
	}

	st.Text = resp.Text()
	st.ToolCalls = resp.ToolCalls()
	st.FinishReason, st.Usage, st.Model = resp.FinishReason, resp.Usage, r.slot().name
	r.steps = append(r.steps, keel.Message{Role: keel.RoleAssistant, Parts: resp.Parts, Metadata: map[string]any{MetadataModel: st.Model}})
	if len(st.ToolCalls) > 0 {
		results := make([]keel.Part, 0, len(st.ToolCalls))
		for _, call := range st.ToolCalls {
			tr, files := r.a.execTool(ctx, r.run, r.tools, call)
			st.ToolResults = append(st.ToolResults, tr)
			results = append(results, tr)
			// A result's files follow it, so that each stays with the
			// call that made it.
			for _, f := range files {
				results = append(results, f)
			}
			if !r.send(Event{Type: EventToolResult, Step: step, ToolResult: tr}) {
				return st, nil, errStopped
			}
		}
		r.steps = append(r.steps, keel.Message{Role: keel.RoleTool, Parts: results})
	}
	if !r.send(Event{Type: EventStepFinish, Step: step, Text: st.Text, FinishReason: st.FinishReason, Usage: st.Usage,
		ResponseID: resp.ID, ModelID: resp.ModelID, Model: st.Model}) {
		return st, nil, errStopped
	}
	return st, resp, nil
}

// prompt is what the model is sent before rewriting: the instructions, the
// thread's history, the turn, this run's earlier steps, and any message a
// processor added.
func (r *runner) prompt() []keel.Message {
	return slices.Concat(r.system, r.history, r.input, r.steps, r.run.AddedMessages())
}

// call makes one model call. For a stream, it forwards the output as it
// comes and reports whether any was sent before a failure.
func (r *runner) call(ctx context.Context, step, attempt int, req *keel.Request) (resp *keel.Response, sent bool, err error) {
	model := r.slot().model // the model this attempt calls: a fallback's, once the run moved on
	if obs := observe.FromContext(ctx); obs != nil {
		op := observe.NewOp()
		*op = observe.Op{Kind: observe.ModelCall, Agent: r.a.cfg.ID, RunID: r.opts.runID, Provider: model.Provider(), Model: model.Name(),
			Step: step, Attempt: attempt, Streaming: r.emit != nil}
		var span observe.Span
		ctx, span = obs.Start(ctx, op)
		defer func() {
			if resp != nil {
				op.ResponseModel, op.ResponseID, op.FinishReason, op.Usage = resp.ModelID, resp.ID, resp.FinishReason, resp.Usage
			}
			op.OutputSent = sent
			ended := err
			if errors.Is(err, errStopped) {
				ended = context.Canceled // the consumer left: the call was cut, it did not fail
			}
			span.End(ended)
			observe.ReleaseOp(op)
		}()
	}
	if r.emit == nil {
		resp, err := model.Generate(ctx, req)
		if err == nil && resp == nil {
			err = fmt.Errorf("agent: model %s/%s returned no response", model.Provider(), model.Name())
		}
		return resp, false, err
	}
	var (
		text  strings.Builder
		calls []keel.Part
	)
	resp = &keel.Response{FinishReason: keel.FinishOther}
	for ev, err := range model.Stream(ctx, req) {
		if err != nil {
			return nil, sent, err
		}
		switch ev.Type {
		case keel.EventTextDelta:
			if ev.Text == "" {
				continue
			}
			text.WriteString(ev.Text)
			sent = true
			if !r.send(Event{Type: EventTextDelta, Step: step, Text: ev.Text}) {
				return nil, sent, errStopped
			}
		case keel.EventToolCall:
			calls = append(calls, ev.ToolCall)
			sent = true
			if !r.send(Event{Type: EventToolCall, Step: step, ToolCall: ev.ToolCall}) {
				return nil, sent, errStopped
			}
		case keel.EventFinish:
			resp.FinishReason, resp.Usage = ev.FinishReason, ev.Usage
			resp.ID, resp.ModelID = ev.ResponseID, ev.ModelID
		}
	}
	if text.Len() > 0 {
		resp.Parts = append(resp.Parts, keel.TextPart{Text: text.String()})
	}
	resp.Parts = append(resp.Parts, calls...)
	return resp, sent, nil
}

func (r *runner) send(ev Event) bool {
	if r.emit == nil {
		return true
	}
	return r.emit(ev)
}

// onRecovery queues a processor's recovery report; the loop sends queued
// reports after each hook, from its own goroutine.
func (r *runner) onRecovery(rec processor.Recovery) {
	if r.emit == nil {
		return
	}
	r.mu.Lock()
	r.pending = append(r.pending, rec)
	r.mu.Unlock()
}

func (r *runner) flushRecoveries(step int) {
	if r.emit == nil {
		return
	}
	r.mu.Lock()
	pending := r.pending
	r.pending = nil
	r.mu.Unlock()
	for _, rec := range pending {
		r.send(Event{Type: EventRecovery, Step: step, Recovery: rec})
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func concat(a, b []keel.Message) []keel.Message {
	out := make([]keel.Message, 0, len(a)+len(b))
	return append(append(out, a...), b...)
}

func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
