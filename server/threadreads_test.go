package server_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// readingStore records the store calls of a turn, in order.
type readingStore struct {
	*memory.InMemory
	mu    sync.Mutex
	calls []string
}

func (s *readingStore) add(c string) {
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// take returns the calls recorded since the last take.
func (s *readingStore) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls
	s.calls = nil
	return c
}

func (s *readingStore) ThreadOwner(ctx context.Context, threadID string) (string, error) {
	s.add("ThreadOwner")
	return s.InMemory.ThreadOwner(ctx, threadID)
}

func (s *readingStore) GetThread(ctx context.Context, resourceID, threadID string) (memory.Thread, error) {
	s.add("GetThread")
	return s.InMemory.GetThread(ctx, resourceID, threadID)
}

func (s *readingStore) ListMessages(ctx context.Context, resourceID, threadID string, opts memory.ListMessagesOptions) (memory.MessagePage, error) {
	s.add("ListMessages")
	return s.InMemory.ListMessages(ctx, resourceID, threadID, opts)
}

func (s *readingStore) StartThread(ctx context.Context, th memory.Thread, msgs []keel.Message) (memory.Thread, []keel.Message, error) {
	s.add("StartThread")
	return s.InMemory.StartThread(ctx, th, msgs)
}

func (s *readingStore) SaveMessages(ctx context.Context, resourceID, threadID string, msgs []keel.Message) ([]keel.Message, error) {
	s.add("SaveMessages")
	return s.InMemory.SaveMessages(ctx, resourceID, threadID, msgs)
}

// TestTurnReadsThreadOnce checks that a turn of a new thread, through
// generate and stream, reads the store once (the owner check before the
// turn's lock), the agent then storing the input without reading the
// thread again; and that the next turn reads the owner and the window.
func TestTurnReadsThreadOnce(t *testing.T) {
	for _, route := range []string{"generate", "stream"} {
		t.Run(route, func(t *testing.T) {
			store := &readingStore{InMemory: memory.NewInMemory()}
			model := keeltest.NewModel(keeltest.Reply{Text: "ok"})
			model.RepeatLast = true
			e := newEnv(t, envOptions{model: model, mem: store})
			body := `{"messages":"hi","memory":{"thread":"t","resource":"r"}}`
			want := [][]string{
				{"ThreadOwner", "StartThread", "SaveMessages"},
				{"ThreadOwner", "ListMessages", "SaveMessages", "SaveMessages"},
			}
			for turn, w := range want {
				if status, resp := e.do("POST", "/api/agents/support/"+route, body); status != 200 {
					t.Fatalf("turn %d: Got(%s) = %d %s; want 200", turn+1, route, status, resp)
				}
				if got := store.take(); !slices.Equal(got, w) {
					t.Errorf("turn %d: Got(store calls) = %q; want %q", turn+1, got, w)
				}
			}
			if got := len(storedMessages(t, store, "r", "t")); got != 4 {
				t.Errorf("Got(stored messages) = %d; want 4", got)
			}
		})
	}
}
