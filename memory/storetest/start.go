package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

func testStartThread(t *testing.T, s memory.Store) {
	ts := capability[memory.ThreadStarter](t, s)
	ctx := context.Background()
	want := []keel.Message{
		text("m1", 1, "hello"),
		file("m2", 2, Bytes(11, 4096)),
	}
	th, saved, err := ts.StartThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1", Title: "new", Metadata: map[string]any{"k": "v"}, CreatedAt: at(0)}, want)
	if err != nil {
		t.Fatalf("StartThread(t1) = %v; want no error", err)
	}
	if th.ID != "t1" || th.ResourceID != "r1" || th.Title != "new" || th.Metadata["k"] != "v" || !th.CreatedAt.Equal(at(0)) || th.UpdatedAt.Before(th.CreatedAt) {
		t.Errorf("Got(StartThread(t1) thread) = %+v; want t1 of r1 titled new, created %v, updated since", th, at(0))
	}
	wantMessages(t, "StartThread(t1)", saved, want)
	got, err := s.GetThread(ctx, "r1", "t1")
	if err != nil || got.Title != "new" || !got.UpdatedAt.Equal(th.UpdatedAt) {
		t.Errorf("Got(GetThread(t1)) = %+v, %v; want %+v", got, err, th)
	}
	page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	wantMessages(t, "ListMessages(t1)", page.Messages, want)
	wantBlobs(t, s, "after StartThread", 1, 4096)

	// Zero IDs and times are filled in as by CreateThread and SaveMessages.
	th2, saved2, err := ts.StartThread(ctx, memory.Thread{ResourceID: "r1"}, []keel.Message{keel.UserText("no id")})
	if err != nil {
		t.Fatalf("StartThread(no id) = %v; want no error", err)
	}
	if th2.ID == "" || th2.CreatedAt.IsZero() || saved2[0].ID == "" || saved2[0].CreatedAt.IsZero() {
		t.Errorf("Got(StartThread(no id)) = %+v, %+v; want generated IDs and times", th2, saved2)
	}
	page = mustList(t, s, "r1", th2.ID, memory.ListMessagesOptions{})
	wantMessages(t, "ListMessages(generated thread)", page.Messages, saved2)
}

// testStartThreadConflict checks that starting a thread that exists, the
// caller's or another resource's, fails with ErrConflict and changes
// nothing.
func testStartThreadConflict(t *testing.T, s memory.Store) {
	ts := capability[memory.ThreadStarter](t, s)
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "alice", Title: "first", CreatedAt: at(0), UpdatedAt: at(0)})
	mustSave(t, s, "alice", "t1", text("a1", 1, "kept"))
	first, err := s.GetThread(ctx, "alice", "t1")
	if err != nil {
		t.Fatalf("GetThread(t1) = %v; want no error", err)
	}
	before, _ := blobStats(t, s)
	for _, owner := range []string{"alice", "bob"} {
		_, _, err := ts.StartThread(ctx, memory.Thread{ID: "t1", ResourceID: owner, Title: "second"},
			[]keel.Message{text("x1", 2, "lost"), file("x2", 3, Bytes(12, 2048))})
		wantErr(t, fmt.Sprintf("StartThread(t1 of %s)", owner), err, memory.ErrConflict)
	}
	got, err := s.GetThread(ctx, "alice", "t1")
	if err != nil || got.Title != "first" || !got.UpdatedAt.Equal(first.UpdatedAt) {
		t.Errorf("Got(GetThread(t1)) = %+v, %v; want %+v, untouched", got, err, first)
	}
	_, err = s.GetThread(ctx, "bob", "t1")
	wantErr(t, "GetThread(t1 of bob)", err, memory.ErrNotFound)
	page := mustList(t, s, "alice", "t1", memory.ListMessagesOptions{})
	wantMessages(t, "ListMessages(t1)", page.Messages, []keel.Message{text("a1", 1, "kept")})
	if after, ok := blobStats(t, s); ok && (after.Blobs != before.Blobs || after.Bytes != before.Bytes) {
		t.Errorf("Got(BlobStats()) = %+v after refused starts; want %+v", after, before)
	}
}

// testStartThreadInvalid checks that a start refused for its thread or its
// messages leaves neither behind.
func testStartThreadInvalid(t *testing.T, s memory.Store) {
	ts := capability[memory.ThreadStarter](t, s)
	ctx := context.Background()
	cases := []struct {
		name string
		th   memory.Thread
		msgs []keel.Message
	}{
		{"no resource", memory.Thread{ID: "t1"}, []keel.Message{keel.UserText("hi")}},
		{"bad title", memory.Thread{ID: "t1", ResourceID: "r1", Title: "\xff"}, []keel.Message{keel.UserText("hi")}},
		{"bad file name", memory.Thread{ID: "t1", ResourceID: "r1"}, []keel.Message{
			file("ok", 1, Bytes(13, 1024)),
			{ID: "bad", Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: []byte("x"), Filename: "\xff.txt"}}},
		}},
	}
	for _, c := range cases {
		_, _, err := ts.StartThread(ctx, c.th, c.msgs)
		wantErr(t, "StartThread("+c.name+")", err, memory.ErrInvalid)
		_, err = s.GetThread(ctx, "r1", "t1")
		wantErr(t, "GetThread(t1) after StartThread("+c.name+")", err, memory.ErrNotFound)
	}
	wantBlobs(t, s, "after refused starts", 0, 0)

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err := ts.StartThread(cctx, memory.Thread{ID: "t1", ResourceID: "r1"}, []keel.Message{keel.UserText("hi")})
	wantErr(t, "StartThread(cancelled)", err, context.Canceled)
	_, err = s.GetThread(ctx, "r1", "t1")
	wantErr(t, "GetThread(t1) after a cancelled start", err, memory.ErrNotFound)
}

// testConcurrentStart checks that of concurrent starts of one thread one
// wins, and only its messages are stored.
func testConcurrentStart(t *testing.T, s memory.Store) {
	ts := capability[memory.ThreadStarter](t, s)
	const n = 8
	var wg sync.WaitGroup
	winners := make(chan int, n)
	for i := range n {
		wg.Go(func() {
			_, _, err := ts.StartThread(context.Background(), memory.Thread{ID: "race", ResourceID: "r1"},
				[]keel.Message{text(fmt.Sprintf("m%d", i), i, fmt.Sprintf("from %d", i))})
			if err == nil {
				winners <- i
				return
			}
			wantErr(t, "StartThread(race)", err, memory.ErrConflict)
		})
	}
	wg.Wait()
	close(winners)
	var won []int
	for i := range winners {
		won = append(won, i)
	}
	if len(won) != 1 {
		t.Fatalf("Got(successful concurrent StartThread of one id) = %v; want one", won)
	}
	page := mustList(t, s, "r1", "race", memory.ListMessagesOptions{})
	i := won[0]
	wantMessages(t, "ListMessages(race)", page.Messages, []keel.Message{text(fmt.Sprintf("m%d", i), i, fmt.Sprintf("from %d", i))})
}
