package storetest

import (
	"context"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// testMessageCount checks Thread.MessageCount: kept as messages are saved,
// once per message whatever the replacing, in every read of a thread.
func testMessageCount(t *testing.T, s memory.Store) {
	ctx := context.Background()
	count := func(call string, want int) {
		t.Helper()
		th, err := s.GetThread(ctx, "r1", "t1")
		if err != nil || th.MessageCount != want {
			t.Errorf("Got(GetThread().MessageCount after %s) = %d, %v; want %d", call, th.MessageCount, err, want)
		}
		page, err := s.ListThreads(ctx, "r1", memory.ListThreadsOptions{})
		for _, th := range page.Threads {
			if th.ID == "t1" && th.MessageCount != want {
				t.Errorf("Got(ListThreads() t1 MessageCount after %s) = %d, %v; want %d", call, th.MessageCount, err, want)
			}
		}
	}
	if th := mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1", MessageCount: 9}); th.MessageCount != 0 {
		t.Errorf("Got(CreateThread(MessageCount 9).MessageCount) = %d; want 0", th.MessageCount)
	}
	mustCreate(t, s, memory.Thread{ID: "t2", ResourceID: "r1"})
	count("CreateThread", 0)
	mustSave(t, s, "r1", "t1", text("m1", 1, "a"), text("m2", 2, "b"))
	mustSave(t, s, "r1", "t2", text("m1", 1, "other thread"))
	count("saving 2", 2)
	// Replacing counts nothing.
	mustSave(t, s, "r1", "t1", text("m2", 2, "B"), text("m3", 3, "c"))
	count("replacing 1 and saving 1", 3)
	_, err := s.SaveMessages(ctx, "r1", "t1", []keel.Message{text("m4", 4, "d"), {Role: "nobody"}})
	wantErr(t, "SaveMessages(invalid)", err, memory.ErrInvalid)
	count("a refused save", 3)
	upd, err := s.UpdateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1", Title: "new", MessageCount: 99})
	if err != nil || upd.MessageCount != 3 {
		t.Errorf("Got(UpdateThread(MessageCount 99).MessageCount) = %d, %v; want 3", upd.MessageCount, err)
	}
	count("UpdateThread", 3)
	if ts, ok := s.(memory.ThreadStarter); ok {
		th, _, err := ts.StartThread(ctx, memory.Thread{ID: "t3", ResourceID: "r1"}, []keel.Message{text("a", 1, "a"), text("b", 2, "b")})
		if err != nil || th.MessageCount != 2 {
			t.Errorf("Got(StartThread(2 messages).MessageCount) = %d, %v; want 2", th.MessageCount, err)
		}
		if got, err := s.GetThread(ctx, "r1", "t3"); err != nil || got.MessageCount != 2 {
			t.Errorf("Got(GetThread(t3).MessageCount) = %d, %v; want 2", got.MessageCount, err)
		}
	}
}
