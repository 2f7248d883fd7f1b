package agent_test

import (
	"context"
	"errors"
	"iter"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/tool"
)

// haltingModel streams "Hello" and, when its consumer stops reading,
// records the state of its context at that moment, before anything the
// agent does afterwards could cancel it.
type haltingModel struct {
	mu       sync.Mutex
	calls    int
	stopped  bool
	ctxAtEnd error
}

func (*haltingModel) Provider() string { return "test" }
func (*haltingModel) Name() string     { return "halting" }

func (h *haltingModel) Generate(context.Context, *keel.Request) (*keel.Response, error) {
	return nil, errors.New("haltingModel: only streams")
}

func (h *haltingModel) Stream(ctx context.Context, _ *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		h.mu.Lock()
		h.calls++
		h.mu.Unlock()
		for _, w := range []string{"Hello", " there"} {
			if !yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: w}, nil) {
				h.mu.Lock()
				h.stopped, h.ctxAtEnd = true, ctx.Err()
				h.mu.Unlock()
				return
			}
		}
		yield(keel.StreamEvent{Type: keel.EventFinish, FinishReason: keel.FinishStop}, nil)
	}
}

// TestBreakingOutOfStreamCancelsTheRun checks that a consumer that stops
// reading a stream ends the run: the model call's context is cancelled as
// the model learns it is no longer read, nothing more is called, and
// nothing but the turn's input is stored. The range loop returns only once
// the run has returned, so what the store holds then is final.
func TestBreakingOutOfStreamCancelsTheRun(t *testing.T) {
	t.Run("during the model's output", func(t *testing.T) {
		store := memory.NewInMemory()
		model := &haltingModel{}
		a := newAgent(t, agent.Config{Model: model, Memory: store})
		for ev, err := range a.Stream(context.Background(), []keel.Message{keel.UserText("hi")}, agent.WithThread("t"), agent.WithResource("u")) {
			if err != nil {
				t.Fatal(err)
			}
			if ev.Type == agent.EventTextDelta {
				break
			}
		}
		model.mu.Lock()
		defer model.mu.Unlock()
		if !model.stopped || !errors.Is(model.ctxAtEnd, context.Canceled) {
			t.Errorf("Got(model stopped, its context) = %v, %v; want stopped with context.Canceled", model.stopped, model.ctxAtEnd)
		}
		if model.calls != 1 {
			t.Errorf("Got(model calls) = %d; want 1", model.calls)
		}
		wantStored(t, store, "t", "hi")
	})

	t.Run("between steps", func(t *testing.T) {
		store := memory.NewInMemory()
		model := keeltest.NewModel(
			keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "noop", Input: []byte(`{}`)}}},
			keelReply{Text: "never"},
		)
		noop := tool.Tool{Name: "noop", Execute: func(context.Context, tool.Call) (any, error) { return "ok", nil }}
		a := newAgent(t, agent.Config{Model: model, Memory: store, Tools: []tool.Tool{noop}})
		for ev, err := range a.Stream(context.Background(), []keel.Message{keel.UserText("hi")}, agent.WithThread("t"), agent.WithResource("u")) {
			if err != nil {
				t.Fatal(err)
			}
			if ev.Type == agent.EventToolResult {
				break
			}
		}
		if n := model.Calls(); n != 1 {
			t.Errorf("Got(model calls) = %d; want 1: no step after the consumer left", n)
		}
		wantStored(t, store, "t", "hi")
	})
}

// wantStored checks that thread holds exactly one message, the user's.
func wantStored(t *testing.T, store memory.Store, thread, text string) {
	t.Helper()
	page, err := store.ListMessages(context.Background(), "u", thread, memory.ListMessagesOptions{})
	if err != nil || page.Total != 1 || page.Messages[0].Text() != text {
		t.Errorf("Got(stored) = %+v, %v; want only the input %q", page.Messages, err, text)
	}
}
