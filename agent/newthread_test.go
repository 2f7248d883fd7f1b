package agent_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// plainStore hides the optional capabilities of the store it wraps, as a
// store without them would be, and counts the threads made through it.
type plainStore struct {
	memory.Store
	creates atomic.Int64
}

func (s *plainStore) CreateThread(ctx context.Context, t memory.Thread) (memory.Thread, error) {
	s.creates.Add(1)
	return s.Store.CreateThread(ctx, t)
}

// startingStore counts the calls of each way a thread is made.
type startingStore struct {
	*memory.InMemory
	creates, starts atomic.Int64
}

func (s *startingStore) CreateThread(ctx context.Context, t memory.Thread) (memory.Thread, error) {
	s.creates.Add(1)
	return s.InMemory.CreateThread(ctx, t)
}

func (s *startingStore) StartThread(ctx context.Context, t memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	s.starts.Add(1)
	return s.InMemory.StartThread(ctx, t, msgs)
}

// TestNewThread checks that a run on a missing thread makes it, in one
// step with its input when the store can, and that a thread of another
// resource stays out of reach whichever way the store makes threads.
func TestNewThread(t *testing.T) {
	cases := []struct {
		name        string
		open        func() (memory.Store, func() (creates, starts int64))
		wantCreates int64
		wantStarts  int64
	}{
		{"starter", func() (memory.Store, func() (int64, int64)) {
			s := &startingStore{InMemory: memory.NewInMemory()}
			return s, func() (int64, int64) { return s.creates.Load(), s.starts.Load() }
		}, 0, 1},
		{"plain", func() (memory.Store, func() (int64, int64)) {
			s := &plainStore{Store: memory.NewInMemory()}
			return s, func() (int64, int64) { return s.creates.Load(), 0 }
		}, 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			store, counts := c.open()
			model := keeltest.NewModel(keelReply{Text: "ok"})
			model.RepeatLast = true
			a := newAgent(t, agent.Config{Model: model, Memory: store})

			res, err := a.Generate(ctx, []keel.Message{keel.UserText("first")}, agent.WithThread("t"), agent.WithResource("alice"))
			if err != nil {
				t.Fatalf("Generate(new thread) = %v; want no error", err)
			}
			if creates, starts := counts(); creates != c.wantCreates || starts != c.wantStarts {
				t.Errorf("Got(CreateThread, StartThread calls) = %d, %d; want %d, %d", creates, starts, c.wantCreates, c.wantStarts)
			}
			page, err := store.ListMessages(ctx, "alice", "t", memory.ListMessagesOptions{})
			if err != nil || page.Total != 2 || page.Messages[0].ID != res.Input[0].ID {
				t.Errorf("Got(ListMessages(t)) = %+v, %v; want the input and the reply", page, err)
			}

			// The second turn finds the thread and its history.
			if _, err := a.Generate(ctx, []keel.Message{keel.UserText("second")}, agent.WithThread("t"), agent.WithResource("alice")); err != nil {
				t.Fatalf("Generate(second turn) = %v; want no error", err)
			}
			if p := model.Prompts(); len(p) != 2 || len(p[1]) != 3 {
				t.Errorf("Got(second prompt) = %d messages; want 3: history and the turn", len(p[len(p)-1]))
			}

			_, err = a.Generate(ctx, []keel.Message{keel.UserText("theirs")}, agent.WithThread("t"), agent.WithResource("mallory"))
			if !errors.Is(err, memory.ErrNotFound) {
				t.Errorf("Got(Generate(mallory)) = %v; want memory.ErrNotFound", err)
			}
			if model.Calls() != 2 {
				t.Errorf("Got(calls) = %d; want 2: the model must not see another resource's thread", model.Calls())
			}
			if page, _ := store.ListMessages(ctx, "alice", "t", memory.ListMessagesOptions{}); page.Total != 4 {
				t.Errorf("Got(ListMessages(t).Total) = %d after mallory's run; want 4", page.Total)
			}
		})
	}
}

// TestConcurrentNewThread checks that concurrent first runs of one thread
// all succeed, one making it and the others joining it.
func TestConcurrentNewThread(t *testing.T) {
	for _, s := range []memory.Store{memory.NewInMemory(), &plainStore{Store: memory.NewInMemory()}} {
		t.Run(fmt.Sprintf("%T", s), func(t *testing.T) {
			model := keeltest.NewModel(keelReply{Text: "ok"})
			model.RepeatLast = true
			a := newAgent(t, agent.Config{Model: model, Memory: s})
			const n = 8
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					_, err := a.Generate(context.Background(), []keel.Message{keel.UserText(fmt.Sprint(i))},
						agent.WithThread("t"), agent.WithResource("alice"))
					if err != nil {
						t.Errorf("Got(Generate(run %d)) = %v; want no error", i, err)
					}
				})
			}
			wg.Wait()
			page, err := s.ListMessages(context.Background(), "alice", "t", memory.ListMessagesOptions{})
			if err != nil || page.Total != 2*n {
				t.Errorf("Got(ListMessages(t)) = %d messages, %v; want %d", page.Total, err, 2*n)
			}
		})
	}
}
