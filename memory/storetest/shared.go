package storetest

import (
	"context"
	"testing"

	"github.com/keel-go/keel/memory"
)

// RunShared runs the cases of the suite that check what two store values
// on one database see of each other, as two servers sharing a database
// do: open returns them, on a new, empty database (two handles on one
// SQLite file, two pools on one PostgreSQL database). A store that cannot
// be opened twice on one database returns one value twice. Closing them
// is open's business (t.Cleanup).
func RunShared(t *testing.T, open func(t *testing.T) (a, b memory.Store)) {
	cases := []struct {
		name string
		run  func(t *testing.T, a, b memory.Store)
	}{
		{"SharedThreads", testSharedThreads},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := open(t)
			c.run(t, a, b)
		})
	}
}

// testSharedThreads has one store value write a thread and the other read
// and extend it at once.
func testSharedThreads(t *testing.T, a, b memory.Store) {
	ctx := context.Background()
	mustCreate(t, a, memory.Thread{ID: "t1", ResourceID: "r1", Title: "shared"})
	mustSave(t, a, "r1", "t1", text("m1", 1, "from a"))
	if owner, err := b.ThreadOwner(ctx, "t1"); err != nil || owner != "r1" {
		t.Errorf("Got(b.ThreadOwner(t1)) = %q, %v; want r1", owner, err)
	}
	mustSave(t, b, "r1", "t1", text("m2", 2, "from b"))
	page := mustList(t, a, "r1", "t1", memory.ListMessagesOptions{Last: 1})
	if len(page.Messages) != 1 || page.Messages[0].Text() != "from b" || page.Total != 2 {
		t.Errorf("Got(a.ListMessages(Last 1)) = %q of %d; want b's message of 2", ids(page.Messages), page.Total)
	}
	if th, err := a.GetThread(ctx, "r1", "t1"); err != nil || th.MessageCount != 2 {
		t.Errorf("Got(a.GetThread(t1).MessageCount) = %d, %v; want 2", th.MessageCount, err)
	}
}
