package agent_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// trail records what happened, in order, across goroutines.
type trail struct {
	mu    sync.Mutex
	steps []string
}

func (t *trail) add(s string) {
	t.mu.Lock()
	t.steps = append(t.steps, s)
	t.mu.Unlock()
}

func (t *trail) get() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.steps)
}

// loggingStore records when a new thread's first turn is stored, and
// fails it with fail when set.
type loggingStore struct {
	*memory.InMemory
	trail *trail
	fail  error
}

func (s *loggingStore) StartThread(ctx context.Context, th memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	if s.fail != nil {
		s.trail.add("input refused")
		return memory.Thread{}, nil, s.fail
	}
	s.trail.add("input stored")
	return s.InMemory.StartThread(ctx, th, msgs)
}

// TestInputStoredBeforeModelCall checks that both front ends store a
// turn's input before calling the model, and that a stream's consumer
// sees the run start before the model is called.
func TestInputStoredBeforeModelCall(t *testing.T) {
	want := map[string][]string{
		"generate": {"input stored", "model called"},
		"stream":   {"input stored", "start", "step-start", "model called", "text-delta", "text-delta", "step-finish", "finish"},
	}
	forModes(t, func(t *testing.T, m mode) {
		tr := &trail{}
		model := keeltest.NewModel(keelReply{Respond: func(*keel.Request) keelReply {
			tr.add("model called")
			return keelReply{Text: "hello there"}
		}})
		store := &loggingStore{InMemory: memory.NewInMemory(), trail: tr}
		a := newAgent(t, agent.Config{Model: model, Memory: store})
		opts := []agent.RunOption{agent.WithThread("t1"), agent.WithResource("alice")}
		input := []keel.Message{keel.UserText("hi")}
		var res *agent.Result
		var err error
		if m.name == "generate" {
			res, err = a.Generate(context.Background(), input, opts...)
		} else {
			for ev, evErr := range a.Stream(context.Background(), input, opts...) {
				if evErr != nil {
					err = evErr
					break
				}
				tr.add(string(ev.Type))
				res = ev.Result
			}
		}
		if err != nil {
			t.Fatalf("run = %v; want no error", err)
		}
		if got := tr.get(); !slices.Equal(got, want[m.name]) {
			t.Errorf("Got(order) = %q; want %q", got, want[m.name])
		}
		if len(res.Input) != 1 || res.Input[0].ID == "" {
			t.Errorf("Got(Result.Input) = %+v; want the input as stored, with its ID", res.Input)
		}
		page, err := store.ListMessages(context.Background(), "alice", "t1", memory.ListMessagesOptions{})
		if err != nil || page.Total != 2 || page.Messages[0].ID != res.Input[0].ID {
			t.Errorf("Got(ListMessages(t1)) = %+v, %v; want the input and the reply", page, err)
		}
	})
}

// TestInputSaveFailureEndsRun checks that when the input cannot be
// stored, the store's error is the run's: the model is never called and
// a stream sends no event.
func TestInputSaveFailureEndsRun(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		errDisk := errors.New("disk full")
		model := keeltest.NewModel(keelReply{Text: "never"})
		store := &loggingStore{InMemory: memory.NewInMemory(), trail: &trail{}, fail: errDisk}
		a := newAgent(t, agent.Config{Model: model, Memory: store})

		_, events, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")},
			agent.WithThread("t1"), agent.WithResource("alice"))
		if !errors.Is(err, errDisk) {
			t.Fatalf("run = %v; want the store's error", err)
		}
		if n := model.Calls(); n != 0 {
			t.Errorf("Got(model calls) = %d; want 0", n)
		}
		if len(events) != 0 {
			t.Errorf("Got(events) = %+v; want none", events)
		}
		if _, err := store.GetThread(context.Background(), "alice", "t1"); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("Got(GetThread(t1)) = %v; want memory.ErrNotFound", err)
		}
	})
}

// panickyStore panics when a new thread's first turn is stored.
type panickyStore struct{ *memory.InMemory }

func (panickyStore) StartThread(context.Context, memory.Thread, []keel.Message) (memory.Thread, []keel.Message, error) {
	panic("store bug")
}

// TestInputSavePanicReachesTheCaller checks that a store's panic while
// the input is stored is raised in the caller's goroutine, where it can
// be recovered.
func TestInputSavePanicReachesTheCaller(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := keeltest.NewModel(keelReply{Text: "hello"})
		a := newAgent(t, agent.Config{Model: model, Memory: panickyStore{memory.NewInMemory()}})
		defer func() {
			if v := recover(); v != "store bug" {
				t.Errorf("Got(recovered) = %v; want the store's panic", v)
			}
		}()
		_, _, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")}, agent.WithThread("t1"), agent.WithResource("alice"))
		t.Errorf("run = %v; want the store's panic", err)
	})
}
