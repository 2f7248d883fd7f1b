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
		{"SharedRefusals", testSharedRefusals},
		{"SharedProviderFiles", testSharedProviderFiles},
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

// testSharedRefusals has one store value learn and forget refusals, and
// the other see each change at once: no cache between them.
func testSharedRefusals(t *testing.T, a, b memory.Store) {
	la, lb := capability[memory.RefusalLedger](t, a), capability[memory.RefusalLedger](t, b)
	ctx := context.Background()
	r := refusal("google", "gemini-2.5-flash", "application/zip", 0)
	mustRecord(t, la, r)
	if got := mustRefusals(t, lb, "google", "gemini-2.5-flash", at(1)); len(got) != 1 || !sameRefusal(got[0], r) {
		t.Errorf("Got(b.Refusals() after a recorded one) = %+v; want %+v", got, r)
	}
	r2 := refusal("google", "gemini-2.5-flash", "application/msword", 1)
	mustRecord(t, lb, r2)
	if got := mustRefusals(t, la, "google", "gemini-2.5-flash", at(2)); len(got) != 2 {
		t.Errorf("Got(a.Refusals() after b recorded one) = %s; want both entries", keys(got))
	}
	if n, err := lb.ForgetRefusals(ctx, r.Key()); err != nil || n != 1 {
		t.Fatalf("b.ForgetRefusals(%+v) = %d, %v; want 1", r.Key(), n, err)
	}
	if got := mustRefusals(t, la, "google", "gemini-2.5-flash", at(2)); keys(got) != "google/gemini-2.5-flash/application/msword" {
		t.Errorf("Got(a.Refusals() after b forgot one) = %s; want only application/msword", keys(got))
	}
	if all := mustListRefusals(t, la); len(all) != 1 {
		t.Errorf("Got(a.ListRefusals()) = %s; want one entry", keys(all))
	}
}
