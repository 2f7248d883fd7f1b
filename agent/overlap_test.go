package agent_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/tool"
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

// slowStore stores a new thread's first turn only once the model has been
// called (modelCalled closed), then after a further delay: a run that
// stored its input before calling the model would wait for it in vain.
type slowStore struct {
	*memory.InMemory
	trail       *trail
	modelCalled chan struct{}
	delay       time.Duration
	fail        error
}

func (s *slowStore) StartThread(ctx context.Context, th memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	if s.fail != nil {
		s.trail.add("input refused")
		return memory.Thread{}, nil, s.fail
	}
	select {
	case <-s.modelCalled:
	case <-time.After(5 * time.Second):
		return memory.Thread{}, nil, errors.New("slowStore: the model was not called while the input was being stored")
	}
	time.Sleep(s.delay)
	s.trail.add("input stored")
	return s.InMemory.StartThread(ctx, th, msgs)
}

// generateOnly is the front end that stores a turn's input while the model
// is first called; a stream stores it first.
var generateOnly = modes[0]

// TestInputStoredDuringFirstCall checks that Generate stores a turn's
// input while the model is first called.
func TestInputStoredDuringFirstCall(t *testing.T) {
	m := generateOnly
	tr := &trail{}
	called := make(chan struct{})
	var once sync.Once
	model := keeltest.NewModel(keelReply{Respond: func(*keel.Request) keelReply {
		tr.add("model called")
		once.Do(func() { close(called) })
		return keelReply{Text: "hello there"}
	}})
	store := &slowStore{InMemory: memory.NewInMemory(), trail: tr, modelCalled: called}
	a := newAgent(t, agent.Config{Model: model, Memory: store})

	res, _, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")},
		agent.WithThread("t1"), agent.WithResource("alice"))
	if err != nil {
		t.Fatalf("run = %v; want no error", err)
	}
	if got, want := tr.get(), []string{"model called", "input stored"}; !slices.Equal(got, want) {
		t.Errorf("Got(order) = %q; want %q", got, want)
	}
	if len(res.Input) != 1 || res.Input[0].ID == "" {
		t.Errorf("Got(Result.Input) = %+v; want the input as stored, with its ID", res.Input)
	}
	page, err := store.ListMessages(context.Background(), "alice", "t1", memory.ListMessagesOptions{})
	if err != nil || page.Total != 2 || page.Messages[0].ID != res.Input[0].ID {
		t.Errorf("Got(ListMessages(t1)) = %+v, %v; want the input and the reply", page, err)
	}
}

// TestStreamStoresInputFirst checks that a stream stores the turn's input
// before calling the model, and that its consumer sees the run start
// before the model is called.
func TestStreamStoresInputFirst(t *testing.T) {
	tr := &trail{}
	model := keeltest.NewModel(keelReply{Respond: func(*keel.Request) keelReply {
		tr.add("model called")
		return keelReply{Text: "hello there"}
	}})
	store := &loggingStore{InMemory: memory.NewInMemory(), trail: tr}
	a := newAgent(t, agent.Config{Model: model, Memory: store})
	for ev, err := range a.Stream(context.Background(), []keel.Message{keel.UserText("hi")},
		agent.WithThread("t1"), agent.WithResource("alice")) {
		if err != nil {
			t.Fatalf("Stream = %v; want no error", err)
		}
		tr.add(string(ev.Type))
	}
	want := []string{"input stored", "start", "step-start", "model called", "text-delta", "text-delta", "step-finish", "finish"}
	if got := tr.get(); !slices.Equal(got, want) {
		t.Errorf("Got(order) = %q; want %q", got, want)
	}
}

// loggingStore records when a new thread's first turn is stored.
type loggingStore struct {
	*memory.InMemory
	trail *trail
}

func (s *loggingStore) StartThread(ctx context.Context, th memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	s.trail.add("input stored")
	return s.InMemory.StartThread(ctx, th, msgs)
}

// waitingModel answers only when its context ends, and records that.
type waitingModel struct {
	cancelled chan struct{}
	calls     atomic.Int64
}

func (*waitingModel) Provider() string { return "test" }
func (*waitingModel) Name() string     { return "waiting" }

func (w *waitingModel) Generate(ctx context.Context, _ *keel.Request) (*keel.Response, error) {
	w.calls.Add(1)
	select {
	case <-ctx.Done():
		close(w.cancelled)
		return nil, ctx.Err()
	case <-time.After(5 * time.Second):
		return &keel.Response{Parts: []keel.Part{keel.TextPart{Text: "too late"}}, FinishReason: keel.FinishStop}, nil
	}
}

func (w *waitingModel) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		if !yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: "partial "}, nil) {
			return
		}
		_, err := w.Generate(ctx, req)
		if err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		yield(keel.StreamEvent{Type: keel.EventFinish, FinishReason: keel.FinishStop}, nil)
	}
}

// TestInputSaveFailureEndsRun checks that when the input cannot be
// stored, the store's error is the run's: Generate cancels the model call
// under way, a stream never calls the model and sends no event.
func TestInputSaveFailureEndsRun(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		errDisk := errors.New("disk full")
		model := &waitingModel{cancelled: make(chan struct{})}
		store := &slowStore{InMemory: memory.NewInMemory(), trail: &trail{}, fail: errDisk}
		a := newAgent(t, agent.Config{Model: model, Memory: store})

		start := time.Now()
		_, events, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")},
			agent.WithThread("t1"), agent.WithResource("alice"))
		if !errors.Is(err, errDisk) {
			t.Fatalf("run = %v; want the store's error", err)
		}
		if m.name == "generate" {
			select {
			case <-model.cancelled:
			default:
				t.Error("the model call was not cancelled")
			}
		} else if n := model.calls.Load(); n != 0 {
			t.Errorf("Got(model calls) = %d; want 0", n)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("run took %v; want the call cut short", d)
		}
		if len(events) != 0 {
			t.Errorf("Got(events) = %+v; want none", events)
		}
		if _, err := store.GetThread(context.Background(), "alice", "t1"); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("Got(GetThread(t1)) = %v; want memory.ErrNotFound", err)
		}
	})
}

// TestToolsWaitForTheInput checks that the tools Generate's first call
// asks for run only once the turn's input is stored.
func TestToolsWaitForTheInput(t *testing.T) {
	m := generateOnly
	tr := &trail{}
	called := make(chan struct{})
	var once sync.Once
	model := keeltest.NewModel(
		keelReply{Respond: func(*keel.Request) keelReply {
			once.Do(func() { close(called) })
			return keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "note", Input: []byte(`{}`)}}}
		}},
		keelReply{Text: "done"},
	)
	note := tool.Tool{Name: "note", Execute: func(context.Context, tool.Call) (any, error) {
		tr.add("tool ran")
		return "ok", nil
	}}
	store := &slowStore{InMemory: memory.NewInMemory(), trail: tr, modelCalled: called, delay: 50 * time.Millisecond}
	a := newAgent(t, agent.Config{Model: model, Memory: store, Tools: []tool.Tool{note}})

	res, _, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")},
		agent.WithThread("t1"), agent.WithResource("alice"))
	if err != nil {
		t.Fatalf("run = %v; want no error", err)
	}
	if got, want := tr.get(), []string{"input stored", "tool ran"}; !slices.Equal(got, want) {
		t.Errorf("Got(order) = %q; want %q", got, want)
	}
	if res.Text != "done" {
		t.Errorf("Got(Text) = %q; want %q", res.Text, "done")
	}
}

// panickyStore panics when a new thread's first turn is stored.
type panickyStore struct{ *memory.InMemory }

func (panickyStore) StartThread(context.Context, memory.Thread, []keel.Message) (memory.Thread, []keel.Message, error) {
	panic("store bug")
}

// TestInputSavePanicReachesTheCaller checks that a store's panic while
// the input is stored beside the model call is raised in the caller's
// goroutine, where it can be recovered, not in one the process cannot.
func TestInputSavePanicReachesTheCaller(t *testing.T) {
	model := keeltest.NewModel(keelReply{Text: "hello"})
	a := newAgent(t, agent.Config{Model: model, Memory: panickyStore{memory.NewInMemory()}})
	defer func() {
		if v := recover(); v != "store bug" {
			t.Errorf("Got(recovered) = %v; want the store's panic", v)
		}
	}()
	_, err := a.Generate(context.Background(), []keel.Message{keel.UserText("hi")}, agent.WithThread("t1"), agent.WithResource("alice"))
	t.Errorf("Generate = %v; want the store's panic", err)
}
