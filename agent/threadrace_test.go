package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
)

// racingStore is a store on which another run always creates the thread
// first: StartThread creates it for owner, then reports the conflict.
type racingStore struct {
	*memory.InMemory
	owner string
}

func (s racingStore) StartThread(ctx context.Context, t memory.Thread, _ []keel.Message) (memory.Thread, []keel.Message, error) {
	t.ResourceID = s.owner
	if _, err := s.InMemory.CreateThread(ctx, t); err != nil {
		return memory.Thread{}, nil, err
	}
	return memory.Thread{}, nil, memory.ErrConflict
}

// TestNewThreadMadeMeanwhile checks a new thread's turn when another run
// made the thread between the look-up and the creation: made for the same
// resource, the turn is saved in it; made for another, the turn fails
// with memory.ErrNotFound and stores nothing.
func TestNewThreadMadeMeanwhile(t *testing.T) {
	for _, tc := range []struct {
		owner   string
		wantErr error
	}{{"u", nil}, {"mallory", memory.ErrNotFound}} {
		t.Run("owner "+tc.owner, func(t *testing.T) {
			mem := racingStore{InMemory: memory.NewInMemory(), owner: tc.owner}
			a, err := agent.New(agent.Config{ID: "a", Model: keeltest.NewModel(keelReply{Text: "hi"}), Memory: mem})
			if err != nil {
				t.Fatal(err)
			}
			_, err = a.Generate(context.Background(), []keel.Message{keel.UserText("q")}, agent.WithThread("t"), agent.WithResource("u"))
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Got(Generate on a thread made meanwhile by %s) = %v; want %v", tc.owner, err, tc.wantErr)
			}
			page, err := mem.ListMessages(context.Background(), tc.owner, "t", memory.ListMessagesOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 2, false: 0}[tc.wantErr == nil]; page.Total != want {
				t.Errorf("Got(messages in the thread) = %d; want %d", page.Total, want)
			}
		})
	}
}
