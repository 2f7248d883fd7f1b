package agent_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// readingStore records each read of a thread and each write, in order.
type readingStore struct {
	*memory.InMemory
	trail *trail
}

func (s *readingStore) GetThread(ctx context.Context, resourceID, threadID string) (memory.Thread, error) {
	s.trail.add("GetThread")
	return s.InMemory.GetThread(ctx, resourceID, threadID)
}

func (s *readingStore) ThreadOwner(ctx context.Context, threadID string) (string, error) {
	s.trail.add("ThreadOwner")
	return s.InMemory.ThreadOwner(ctx, threadID)
}

func (s *readingStore) ListMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	s.trail.add("ListMessages")
	return s.InMemory.ListMessages(ctx, resourceID, threadID, opts)
}

func (s *readingStore) StartThread(ctx context.Context, th memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	s.trail.add("StartThread")
	return s.InMemory.StartThread(ctx, th, msgs)
}

func (s *readingStore) SaveMessages(ctx context.Context, resourceID, threadID string, msgs []keel.Message) ([]keel.Message, error) {
	s.trail.add("SaveMessages")
	return s.InMemory.SaveMessages(ctx, resourceID, threadID, msgs)
}

// TestThreadReads checks what a turn reads of its thread before storing
// its input: the window alone for a stored thread (which checks its owner
// too), nothing with WithNewThread, and that WithNewThread given for a
// thread that exists still joins it with its history, or refuses another
// resource's.
func TestThreadReads(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		seed     string // the resource that owns thread t before the turn, if any
		resource string
		opts     []agent.RunOption
		want     []string
		wantErr  error
		history  int // messages the model sees before the turn's input
	}{
		{"new thread", "", "alice", nil, []string{"ListMessages", "StartThread", "SaveMessages"}, nil, 0},
		{"new thread, said new", "", "alice", []agent.RunOption{agent.WithNewThread()}, []string{"StartThread", "SaveMessages"}, nil, 0},
		{"stored thread", "alice", "alice", nil, []string{"ListMessages", "SaveMessages", "SaveMessages"}, nil, 2},
		{"stored thread, said new", "alice", "alice", []agent.RunOption{agent.WithNewThread()},
			[]string{"StartThread", "GetThread", "ListMessages", "SaveMessages", "SaveMessages"}, nil, 2},
		{"another's thread", "bob", "alice", nil, []string{"ListMessages", "StartThread", "GetThread"}, memory.ErrNotFound, 0},
		{"another's thread, said new", "bob", "alice", []agent.RunOption{agent.WithNewThread()},
			[]string{"StartThread", "GetThread"}, memory.ErrNotFound, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			store := &readingStore{InMemory: memory.NewInMemory(), trail: &trail{}}
			if c.seed != "" {
				if _, _, err := store.InMemory.StartThread(ctx, memory.Thread{ID: "t", ResourceID: c.seed},
					[]keel.Message{keel.UserText("before"), {Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "earlier"}}}}); err != nil {
					t.Fatal(err)
				}
			}
			var seen int
			model := keeltest.NewModel(keelReply{Respond: func(r *keel.Request) keelReply {
				seen = len(r.Messages) - 1
				return keelReply{Text: "ok"}
			}})
			a := newAgent(t, agent.Config{Model: model, Memory: store})
			opts := append([]agent.RunOption{agent.WithThread("t"), agent.WithResource(c.resource)}, c.opts...)
			_, err := a.Generate(ctx, []keel.Message{keel.UserText("now")}, opts...)
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
				t.Fatalf("Generate = %v; want %v", err, c.wantErr)
			}
			if got := store.trail.get(); !slices.Equal(got, c.want) {
				t.Errorf("Got(store calls) = %q; want %q", got, c.want)
			}
			if c.wantErr != nil {
				if n := model.Calls(); n != 0 {
					t.Errorf("Got(model calls) = %d; want 0", n)
				}
				page, err := store.InMemory.ListMessages(ctx, c.seed, "t", memory.ListMessagesOptions{})
				if err != nil || page.Total != 2 {
					t.Errorf("Got(the owner's thread) = %d messages, %v; want its 2, untouched", page.Total, err)
				}
				return
			}
			if seen != c.history {
				t.Errorf("Got(messages before the input, as the model saw them) = %d; want %d", seen, c.history)
			}
		})
	}
}
