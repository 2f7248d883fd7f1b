package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// loadThread reads the run's thread, checking it is the resource's, and
// returns its history window (see loadWindow); first reports a thread that
// holds no message yet. A thread that is missing is reported, not made:
// the first save of the run makes it (see saveInput), so that a new
// thread's first turn can cost the store one commit. A missing thread may
// also be another resource's, which only saveInput finds out; the model is
// called only once the input is stored, so never for such a thread. With
// [WithNewThread] the thread is taken for missing without a read.
func (a *Agent) loadThread(ctx context.Context, o runOptions) (history []keel.Message, missing, first bool, err error) {
	if o.threadID == "" {
		return nil, false, false, nil
	}
	if a.cfg.Memory == nil {
		return nil, false, false, ErrNoMemory
	}
	if o.resourceID == "" {
		return nil, false, false, ErrNoResource
	}
	if o.newThread {
		return nil, true, true, nil
	}
	// The window's read checks the owner too: a store reports another
	// resource's thread as missing.
	history, total, err := a.loadWindow(ctx, o)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, true, true, nil
	}
	return history, false, total == 0, err
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
	th := memory.Thread{ID: o.threadID, ResourceID: o.resourceID, Title: DefaultTitle(msgs)}
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
	if hist, _, err = a.loadWindow(ctx, o); err != nil {
		return nil, nil, err
	}
	stored, err = a.save(ctx, o, msgs)
	return hist, stored, err
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

// updateStored is the run's [processor.Run.UpdateStored] when its thread
// is stored: it changes the stored message with ID id, of the thread's
// history or of the turn, with change (given a clone) and stores it
// again. A store that fails is logged: the turn goes on, and a later
// turn does again what the change would have spared it.
func (r *runner) updateStored(ctx context.Context, id string, change func(*keel.Message)) {
	for _, list := range [][]keel.Message{r.history, r.input} {
		for i := range list {
			if list[i].ID != id {
				continue
			}
			m := list[i].Clone()
			change(&m)
			stored, err := r.a.cfg.Memory.SaveMessages(ctx, r.opts.resourceID, r.opts.threadID, []keel.Message{m})
			if err != nil || len(stored) != 1 {
				r.a.logger.Warn("agent: a processor's change to a stored message not stored; a later turn does it again", "agent", r.a.cfg.ID,
					"run", r.opts.runID, "message", id, "err", err)
				return
			}
			list[i] = stored[0]
			return
		}
	}
}
