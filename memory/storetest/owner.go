package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/keel-go/keel/memory"
)

// testThreadOwner checks [memory.Store.ThreadOwner]: the owner of each
// thread, ErrNotFound for a missing or deleted one, ErrInvalid for an ID
// that cannot be stored.
func testThreadOwner(t *testing.T, s memory.Store) {
	ctx := context.Background()
	for _, th := range []memory.Thread{{ID: "t1", ResourceID: "r1"}, {ID: "t2", ResourceID: "r2"}} {
		if _, err := s.CreateThread(ctx, th); err != nil {
			t.Fatalf("CreateThread(%s) = %v; want no error", th.ID, err)
		}
	}
	for id, want := range map[string]string{"t1": "r1", "t2": "r2"} {
		if got, err := s.ThreadOwner(ctx, id); err != nil || got != want {
			t.Errorf("Got(ThreadOwner(%s)) = %q, %v; want %q", id, got, err, want)
		}
	}
	if err := s.DeleteThread(ctx, "r2", "t2"); err != nil {
		t.Fatalf("DeleteThread(t2) = %v; want no error", err)
	}
	for _, id := range []string{"t2", "missing"} {
		if got, err := s.ThreadOwner(ctx, id); !errors.Is(err, memory.ErrNotFound) {
			t.Errorf("Got(ThreadOwner(%s)) = %q, %v; want memory.ErrNotFound", id, got, err)
		}
	}
	for _, id := range []string{"", "a b", "x;rm -rf /", ".", ".."} {
		var idErr *memory.IDError
		if got, err := s.ThreadOwner(ctx, id); !errors.Is(err, memory.ErrInvalid) || !errors.As(err, &idErr) {
			t.Errorf("Got(ThreadOwner(%q)) = %q, %v; want memory.ErrInvalid", id, got, err)
		}
	}
}
