package storetest

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// turn is a queued turn of thread in resource, its message holding a
// file of seed's bytes.
func turn(id, resource, thread string, seed uint64, sec int) memory.QueuedTurn {
	return memory.QueuedTurn{ID: id, AgentID: "assistant", ResourceID: resource, ThreadID: thread, QueuedAt: at(sec),
		Options: []byte(`{"maxSteps":3}`),
		Message: keel.Message{ID: "m-" + id, Role: keel.RoleUser, CreatedAt: at(sec), Metadata: map[string]any{"k": "v"}, Parts: []keel.Part{
			keel.TextPart{Text: "read " + id},
			keel.FilePart{Data: Bytes(seed, 3000), MediaType: "application/pdf", Filename: "f.pdf"},
		}}}
}

// A turn queue gives each thread's turns back oldest first, whole, until
// removed; it keeps to its bounds, refuses bad input storing nothing, and
// forgets a deleted thread's turns.
func testTurnQueue(t *testing.T, s memory.Store) {
	q := capability[memory.TurnQueue](t, s)
	ctx := context.Background()
	limits := memory.QueueLimits{PerThread: 2, PerResource: 3}
	for _, tt := range []memory.QueuedTurn{turn("a1", "r1", "t1", 1, 0), turn("a2", "r1", "t1", 2, 1), turn("b1", "r1", "t2", 3, 2)} {
		if err := q.QueueTurn(ctx, tt, limits); err != nil {
			t.Fatalf("QueueTurn(%s) = %v; want no error", tt.ID, err)
		}
	}
	wantErr(t, "QueueTurn(third of t1)", q.QueueTurn(ctx, turn("a3", "r1", "t1", 4, 3), limits), memory.ErrFull)
	wantErr(t, "QueueTurn(fourth of r1)", q.QueueTurn(ctx, turn("c1", "r1", "t3", 4, 3), limits), memory.ErrFull)
	wantErr(t, "QueueTurn(a queued id)", q.QueueTurn(ctx, turn("a1", "r2", "t9", 4, 3), memory.QueueLimits{}), memory.ErrConflict)
	bad := turn("x1", "r2", "t9", 5, 4)
	bad.Message.Role = keel.RoleAssistant
	for name, tt := range map[string]memory.QueuedTurn{
		"an assistant's message": bad,
		"thread ..":              turn("x2", "r2", "..", 5, 4),
		"resource with a space":  turn("x3", "r 2", "t9", 5, 4),
		"no id":                  turn("", "r2", "t9", 5, 4),
	} {
		wantErr(t, "QueueTurn("+name+")", q.QueueTurn(ctx, tt, memory.QueueLimits{}), memory.ErrInvalid)
	}
	if ids, err := q.QueuedThreads(ctx); err != nil || !slices.Equal(ids, []string{"t1", "t2"}) {
		t.Errorf("Got(QueuedThreads) = %q, %v; want t1 t2: nothing refused was stored", ids, err)
	}

	got, err := q.NextTurn(ctx, "t1")
	want := turn("a1", "r1", "t1", 1, 0)
	if err != nil || got.ID != "a1" || got.AgentID != "assistant" || got.ResourceID != "r1" || !got.QueuedAt.Equal(at(0)) ||
		!bytes.Equal(got.Options, want.Options) {
		t.Fatalf("Got(NextTurn(t1)) = %+v, %v; want a1 as queued", got, err)
	}
	if d := diffMessage(got.Message, want.Message); d != "" {
		t.Errorf("Got(NextTurn(t1)'s message): %s", d)
	}
	if err := q.RemoveTurn(ctx, "a1"); err != nil {
		t.Fatalf("RemoveTurn(a1) = %v; want no error", err)
	}
	if err := q.RemoveTurn(ctx, "a1"); err != nil {
		t.Errorf("RemoveTurn(a1 again) = %v; want no error", err)
	}
	if got, err := q.NextTurn(ctx, "t1"); err != nil || got.ID != "a2" {
		t.Errorf("Got(NextTurn(t1) after removing a1) = %s, %v; want a2", got.ID, err)
	}
	_, err = q.NextTurn(ctx, "t7")
	wantErr(t, "NextTurn(a thread with none)", err, memory.ErrNotFound)

	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	if err := s.DeleteThread(ctx, "r1", "t1"); err != nil {
		t.Fatal(err)
	}
	_, err = q.NextTurn(ctx, "t1")
	wantErr(t, "NextTurn(a deleted thread)", err, memory.ErrNotFound)
	if ids, err := q.QueuedThreads(ctx); err != nil || !slices.Equal(ids, []string{"t2"}) {
		t.Errorf("Got(QueuedThreads after deleting t1) = %q, %v; want t2", ids, err)
	}
}
