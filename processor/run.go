package processor

import (
	"context"
	"log/slog"
	"sync"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/workspace"
)

// Run is the state of one agent run that processors share: who it is for,
// its messages, its retry count, its sandbox, and each processor's own
// state. A Run is safe for concurrent use.
type Run struct {
	// ID identifies the run.
	ID string
	// AgentID, ThreadID and ResourceID say whose run it is. ThreadID and
	// ResourceID may be empty (a run without memory).
	AgentID, ThreadID, ResourceID string
	// Messages are the run's stored history followed by the turn's new
	// messages, as stored (files included). Read-only.
	Messages []keel.Message
	// Workspace is the agent's workspace; nil when it has none.
	Workspace *workspace.Workspace
	// Logger receives processors' logs; never nil once the run starts.
	Logger *slog.Logger
	// UpdateStored, set by the agent when the run's thread is stored,
	// changes the stored message with ID id (of the history or the turn):
	// change is given a clone, which is stored again. A store that fails
	// is the agent's to log; the run goes on. Call it from the run's hooks
	// only, not from goroutines of their own: it changes the run's copy of
	// the thread too.
	UpdateStored func(ctx context.Context, id string, change func(*keel.Message))

	mu         sync.Mutex
	retryCount int
	state      map[string]any
	added      []keel.Message
	recoveries []Recovery
	onRecovery func(Recovery)

	// sandboxMu guards sandboxes apart from mu, so that a slow resolver
	// holds up only the hooks that need a sandbox.
	sandboxMu sync.Mutex
	sandboxes map[*workspace.Workspace]resolved

	digests fileDigests
}

// NewRun returns a run; the agent makes one per Generate or Stream call.
// onRecovery, if not nil, is called for every [Run.Report].
func NewRun(id string, onRecovery func(Recovery)) *Run {
	return &Run{ID: id, Logger: slog.Default(), onRecovery: onRecovery}
}

// updateStored calls UpdateStored, if set, for a message with an ID.
func (r *Run) updateStored(ctx context.Context, id string, change func(*keel.Message)) {
	if r.UpdateStored != nil && id != "" {
		r.UpdateStored(ctx, id, change)
	}
}

// RetryCount is the number of processor-triggered retries so far in the
// run, shared by all processors.
func (r *Run) RetryCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.retryCount
}

func (r *Run) incRetry() {
	r.mu.Lock()
	r.retryCount++
	r.mu.Unlock()
}

// Sandbox returns the run's sandbox, resolved from the workspace once per
// run: the sandbox the agent's tools use. The error wraps
// [workspace.ErrNoSandbox] when there is none.
//
// A resolution is kept for the rest of the run unless ctx was done when it
// returned: a cancelled context ends the run (see [Pipeline]), and what was
// learned under it is not kept.
func (r *Run) Sandbox(ctx context.Context) (workspace.Sandbox, error) {
	res := r.resolve(ctx, r.Workspace)
	return res.sandbox, res.err
}

// resolved is a workspace's sandbox for the run, and whether it can take
// files.
type resolved struct {
	sandbox  workspace.Sandbox
	err      error // wraps workspace.ErrNoSandbox, or is the resolver's
	uploader *workspace.Uploader
	upErr    error // workspace.ErrNoWriteCapability
}

// uploader returns an uploader into ws's sandbox for the run: the sandbox
// is resolved, and its capability to take files checked, once per run
// (as [Run.Sandbox] says), however many files and calls the run has.
func (r *Run) uploader(ctx context.Context, ws *workspace.Workspace) (*workspace.Uploader, error) {
	res := r.resolve(ctx, ws)
	if res.err != nil {
		return nil, res.err
	}
	return res.uploader, res.upErr
}

func (r *Run) resolve(ctx context.Context, ws *workspace.Workspace) resolved {
	r.sandboxMu.Lock()
	defer r.sandboxMu.Unlock()
	if res, ok := r.sandboxes[ws]; ok {
		return res
	}
	var res resolved
	res.sandbox, res.err = ws.Sandbox(ctx, workspace.Scope{AgentID: r.AgentID, ThreadID: r.ThreadID, ResourceID: r.ResourceID})
	if res.err == nil {
		res.uploader, res.upErr = workspace.NewUploader(res.sandbox)
	}
	if ctx.Err() == nil {
		setIn(&r.sandboxes, ws, res)
	}
	return res
}

// NextModel starts the run over on another model: what processors
// learned, the retries they made and the messages they added belong to
// the model that failed, so they are dropped, and the next model starts
// from the prompt as the user sent it (files restored). Recoveries stay:
// they tell what happened. The sandbox stays resolved.
func (r *Run) NextModel() {
	r.mu.Lock()
	r.retryCount, r.state, r.added = 0, nil, nil
	r.mu.Unlock()
}

// AddMessage adds a message to the run: it is stored with the turn's new
// messages and sent in the prompt of every later call.
func (r *Run) AddMessage(m keel.Message) {
	r.mu.Lock()
	r.added = append(r.added, m)
	r.mu.Unlock()
}

// AddedMessages returns the messages added with [Run.AddMessage], in order.
func (r *Run) AddedMessages() []keel.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]keel.Message(nil), r.added...)
}

// Report records a recovery of the run and passes it to the run's
// listener (the stream, for example).
func (r *Run) Report(rec Recovery) {
	r.mu.Lock()
	r.recoveries = append(r.recoveries, rec)
	fn := r.onRecovery
	r.mu.Unlock()
	if fn != nil {
		fn(rec)
	}
}

// Recoveries returns the recoveries reported so far, in order.
func (r *Run) Recoveries() []Recovery { return r.RecoveriesSince(0) }

// RecoveriesSince returns a copy of the recoveries reported after the
// first n, in order; with [Run.NumRecoveries] before an operation, those
// it reported.
func (r *Run) RecoveriesSince(n int) []Recovery {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n >= len(r.recoveries) {
		return nil
	}
	return append([]Recovery(nil), r.recoveries[max(n, 0):]...)
}

// NumRecoveries returns how many recoveries the run reported so far.
func (r *Run) NumRecoveries() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.recoveries)
}

// setIn sets (*m)[k] to v, making the map first when it is nil: the
// state of a run, and the caches of its processors, start empty.
func setIn[M ~map[K]V, K comparable, V any](m *M, k K, v V) {
	if *m == nil {
		*m = make(M)
	}
	(*m)[k] = v
}

// StateOf returns processor p's state of type T for run r, made (zero) on
// first use. The state lives as long as the run and is never shared with
// another run. Callers that touch the state from several goroutines at once
// guard it themselves.
func StateOf[T any](r *Run, p Processor) *T {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		r.state = make(map[string]any)
	}
	if v, ok := r.state[p.ID()].(*T); ok {
		return v
	}
	v := new(T)
	r.state[p.ID()] = v
	return v
}
