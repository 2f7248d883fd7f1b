package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// loadThread checks the run's thread for its resource and returns its
// stored messages. A thread that is missing is reported, not made: the
// first save of the run makes it (see saveInput), so that a new thread's
// first turn can cost the store one commit. checked reports that the
// thread is known to be the caller's or to be missing; when it is false,
// a missing thread may be another resource's, which only saveInput finds
// out.
func (a *Agent) loadThread(ctx context.Context, o runOptions) (history []keel.Message, missing, checked bool, err error) {
	if o.threadID == "" {
		return nil, false, false, nil
	}
	mem := a.cfg.Memory
	if mem == nil {
		return nil, false, false, ErrNoMemory
	}
	if o.resourceID == "" {
		return nil, false, false, ErrNoResource
	}
	if f, ok := mem.(memory.ThreadOwnerFinder); ok {
		if err := memory.CheckID("resource", o.resourceID); err != nil {
			return nil, false, false, fmt.Errorf("agent: thread %s: %w", o.threadID, err)
		}
		owner, err := f.ThreadOwner(ctx, o.threadID)
		switch {
		case errors.Is(err, memory.ErrNotFound):
			return nil, true, true, nil
		case err != nil:
			return nil, false, false, fmt.Errorf("agent: thread %s: %w", o.threadID, err)
		case owner != o.resourceID:
			// Told exactly as a missing thread is, so that a caller
			// cannot learn another resource's threads exist.
			return nil, false, false, fmt.Errorf("agent: thread %s: %w: thread %q of resource %q",
				o.threadID, memory.ErrNotFound, o.threadID, o.resourceID)
		}
		history, err = a.listThread(ctx, o)
		return history, false, true, err
	}
	_, err = mem.GetThread(ctx, o.resourceID, o.threadID)
	if errors.Is(err, memory.ErrNotFound) {
		// Missing, or another resource's: saveInput tells them apart.
		return nil, true, false, nil
	}
	if err != nil {
		return nil, false, false, fmt.Errorf("agent: thread %s: %w", o.threadID, err)
	}
	history, err = a.listThread(ctx, o)
	return history, false, true, err
}

func (a *Agent) listThread(ctx context.Context, o runOptions) ([]keel.Message, error) {
	page, err := a.cfg.Memory.ListMessages(ctx, o.resourceID, o.threadID, memory.ListMessagesOptions{})
	if err != nil {
		return nil, fmt.Errorf("agent: load thread %s: %w", o.threadID, err)
	}
	return page.Messages, nil
}

// saveInput stores the turn's input, first making the thread if
// loadThread found it missing: in one step with the input when the store
// is a [memory.ThreadStarter]. If the thread was made meanwhile, by a
// concurrent run of its resource, the input joins it and the history it
// has by then is returned; a thread of another resource is an error
// wrapping [memory.ErrNotFound], and nothing is stored.
func (a *Agent) saveInput(ctx context.Context, o runOptions, missing bool, history, msgs []keel.Message) (hist, stored []keel.Message, err error) {
	if !missing {
		stored, err = a.save(ctx, o, msgs)
		return history, stored, err
	}
	mem := a.cfg.Memory
	th := memory.Thread{ID: o.threadID, ResourceID: o.resourceID}
	if st, ok := mem.(memory.ThreadStarter); ok && len(msgs) > 0 {
		_, stored, err = st.StartThread(ctx, th, msgs)
	} else {
		_, err = mem.CreateThread(ctx, th)
		if err == nil {
			stored, err = a.save(ctx, o, msgs)
			return nil, stored, err
		}
	}
	if err == nil {
		return nil, stored, nil
	}
	if !errors.Is(err, memory.ErrConflict) {
		return nil, nil, fmt.Errorf("agent: thread %s: %w", o.threadID, err)
	}
	// Made meanwhile by a concurrent run, or owned by another resource:
	// only the first may be used.
	if _, err := mem.GetThread(ctx, o.resourceID, o.threadID); err != nil {
		return nil, nil, fmt.Errorf("agent: thread %s: %w", o.threadID, err)
	}
	if hist, err = a.listThread(ctx, o); err != nil {
		return nil, nil, err
	}
	stored, err = a.save(ctx, o, msgs)
	return hist, stored, err
}

// inputSave is the turn's input being stored while a Generate's first
// model call is under way, which takes the store's commit off the run's
// path. It is used only when loadThread checked the thread, so that the
// model is never called for a thread the caller may not use. Until the
// save is settled nothing the call asks for (tools, error handling)
// happens, and a failed save cancels the call and is the run's error. The
// first call's prompt holds the history as loaded: when a concurrent run
// makes the new thread first, this run's input joins it after that run's,
// and this run goes on without the other run's messages, as if it had
// called the model first.
//
// A Stream stores its input before calling the model, as its consumer
// must see the run start as soon as the input is stored, not when the
// model's first token arrives; overlapping the two would need the model's
// stream pulled from another goroutine.
type inputSave struct {
	done       chan struct{}
	stored     []keel.Message
	err        error
	callCtx    context.Context // the first call's context, cancelled when the save fails
	cancelCall context.CancelFunc
	// panicked is the value of a panic of the store, raised again in the
	// run's goroutine (see rethrow), as it was before the save had one of
	// its own.
	panicked any
}

func (a *Agent) startSaveInput(ctx context.Context, o runOptions, missing bool, history, msgs []keel.Message) *inputSave {
	s := &inputSave{done: make(chan struct{})}
	s.callCtx, s.cancelCall = context.WithCancel(ctx)
	go func() {
		defer close(s.done)
		defer func() {
			if v := recover(); v != nil {
				s.panicked, s.err = v, fmt.Errorf("agent: save input: store panicked: %v", v)
				s.cancelCall()
			}
		}()
		_, s.stored, s.err = a.saveInput(ctx, o, missing, history, msgs)
		if s.err != nil {
			s.cancelCall()
		}
	}()
	return s
}

// wait waits for the save to end, releases the first call's context, and
// raises again a panic of the store.
func (s *inputSave) wait() {
	<-s.done
	s.cancelCall()
	if s.panicked != nil {
		panic(s.panicked)
	}
}

// settleInput waits for the input being stored, if it still is, and makes
// the run go on with the input as stored. It returns the save's error,
// then and on every later call.
func (r *runner) settleInput() error {
	s := r.saving
	if s == nil {
		return r.failed
	}
	r.saving = nil
	s.wait()
	if s.err != nil {
		r.failed = s.err
		return s.err
	}
	r.input = s.stored
	r.run.Messages = concat(r.history, r.input)
	return nil
}

// save stores msgs in the run's thread and returns them as stored; without
// a thread it returns them unchanged.
func (a *Agent) save(ctx context.Context, o runOptions, msgs []keel.Message) ([]keel.Message, error) {
	if o.threadID == "" || len(msgs) == 0 {
		return msgs, nil
	}
	stored, err := a.cfg.Memory.SaveMessages(ctx, o.resourceID, o.threadID, msgs)
	if err != nil {
		return nil, fmt.Errorf("agent: save messages: %w", err)
	}
	return stored, nil
}
