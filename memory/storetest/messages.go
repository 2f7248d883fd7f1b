package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

func text(id string, sec int, s string) keel.Message {
	return keel.Message{ID: id, Role: keel.RoleUser, CreatedAt: at(sec), Parts: []keel.Part{keel.TextPart{Text: s}}}
}

func testMessagePaging(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	for i := range 5 {
		mustSave(t, s, "r1", "t1", text(fmt.Sprintf("m%d", i), i, "x"))
	}
	cases := []struct {
		opts     memory.ListMessagesOptions
		want     []string
		wantMore bool
	}{
		{memory.ListMessagesOptions{}, []string{"m0", "m1", "m2", "m3", "m4"}, false},
		{memory.ListMessagesOptions{PerPage: 2}, []string{"m0", "m1"}, true},
		{memory.ListMessagesOptions{PerPage: 2, Page: 1}, []string{"m2", "m3"}, true},
		{memory.ListMessagesOptions{PerPage: 2, Page: 2}, []string{"m4"}, false},
		{memory.ListMessagesOptions{PerPage: 2, Page: 3}, []string{}, false},
		{memory.ListMessagesOptions{PerPage: 5}, []string{"m0", "m1", "m2", "m3", "m4"}, false},
		{memory.ListMessagesOptions{PerPage: 9}, []string{"m0", "m1", "m2", "m3", "m4"}, false},
		{memory.ListMessagesOptions{Page: 1}, []string{}, false},
	}
	for _, c := range cases {
		page, err := s.ListMessages(ctx, "r1", "t1", c.opts)
		if err != nil {
			t.Errorf("Got(ListMessages(%+v)) = %v; want no error", c.opts, err)
			continue
		}
		got := ids(page.Messages)
		if !slices.Equal(got, c.want) || page.Total != 5 || page.HasMore != c.wantMore || page.Page != c.opts.Page || page.PerPage != c.opts.PerPage {
			t.Errorf("Got(ListMessages(%+v)) = %q total %d more %v page %d per %d; want %q total 5 more %v",
				c.opts, got, page.Total, page.HasMore, page.Page, page.PerPage, c.want, c.wantMore)
		}
	}
}

func testMessageOrdering(t *testing.T, s memory.Store) {
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	// Saved out of time order, in two calls; "b1" and "b2" share a time
	// and keep the order they were saved in.
	mustSave(t, s, "r1", "t1", text("late", 9, "x"), text("b2", 5, "x"), text("b1", 5, "x"))
	mustSave(t, s, "r1", "t1", text("early", 1, "x"))
	saved := mustSave(t, s, "r1", "t1", keel.UserText("now"))
	if !memory.ValidID(saved[0].ID) || saved[0].CreatedAt.IsZero() || !saved[0].CreatedAt.After(at(9)) {
		t.Errorf("Got(SaveMessages(no id, no time)) = %q at %v; want a generated id and now", saved[0].ID, saved[0].CreatedAt)
	}
	page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	want := []string{"early", "b2", "b1", "late", saved[0].ID}
	if got := ids(page.Messages); !slices.Equal(got, want) {
		t.Errorf("Got(ListMessages()) = %q; want %q", got, want)
	}
}

func testReplaceMessage(t *testing.T, s memory.Store) {
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	mustSave(t, s, "r1", "t1", text("m1", 1, "one"), text("m2", 2, "two"), text("m3", 3, "three"))
	// A replacement without a time keeps the stored one, and its place.
	replaced := mustSave(t, s, "r1", "t1", keel.Message{ID: "m2", Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "TWO"}}})
	if !replaced[0].CreatedAt.Equal(at(2)) {
		t.Errorf("Got(SaveMessages(replacement).CreatedAt) = %v; want the stored %v", replaced[0].CreatedAt, at(2))
	}
	// One with a time moves to it.
	mustSave(t, s, "r1", "t1", text("m1", 4, "ONE"))
	page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	wantMessages(t, "ListMessages() after replacing", page.Messages, []keel.Message{
		{ID: "m2", Role: keel.RoleAssistant, CreatedAt: at(2), Parts: []keel.Part{keel.TextPart{Text: "TWO"}}},
		text("m3", 3, "three"),
		text("m1", 4, "ONE"),
	})
	// The same message ID in another thread is another message.
	mustCreate(t, s, memory.Thread{ID: "t2", ResourceID: "r1"})
	mustSave(t, s, "r1", "t2", text("m1", 1, "elsewhere"))
	page = mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	if page.Total != 3 || page.Messages[2].Text() != "ONE" {
		t.Errorf("Got(ListMessages(t1)) = %d messages, last %q; want 3, last ONE", page.Total, page.Messages[len(page.Messages)-1].Text())
	}
}

func file(id string, sec int, data ...[]byte) keel.Message {
	m := keel.Message{ID: id, Role: keel.RoleUser, CreatedAt: at(sec)}
	for i, d := range data {
		m.Parts = append(m.Parts, keel.FilePart{Data: d, MediaType: "application/octet-stream", Filename: fmt.Sprintf("f%d.bin", i)})
	}
	return m
}

func wantBlobs(t *testing.T, s memory.Store, when string, blobs int, bytes int64) {
	t.Helper()
	st, _ := blobStats(t, s)
	if st.Blobs != blobs || st.Bytes != bytes {
		t.Errorf("Got(BlobStats() %s) = %d blobs, %d bytes; want %d, %d", when, st.Blobs, st.Bytes, blobs, bytes)
	}
}

func testBlobRefCounting(t *testing.T, s memory.Store) {
	if _, ok := blobStats(t, s); !ok {
		t.Skipf("%T is not a memory.BlobReporter: its blobs cannot be counted", s)
	}
	ctx := context.Background()
	a, b, c := Bytes(10, 1000), Bytes(11, 2000), Bytes(12, 4000)
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	mustCreate(t, s, memory.Thread{ID: "t2", ResourceID: "r2"})

	// One file twice in a message, again in a data: URL, again in another
	// thread of another resource: one blob.
	m := file("m1", 1, a, a)
	m.Parts = append(m.Parts, keel.FilePart{URL: keel.DataURL("application/octet-stream", a)})
	mustSave(t, s, "r1", "t1", m, file("m2", 2, b))
	mustSave(t, s, "r2", "t2", file("m1", 1, a, c))
	wantBlobs(t, s, "after saving", 3, 7000)

	// Replacing m2 with a message without its file lets the file go.
	mustSave(t, s, "r1", "t1", text("m2", 2, "no file now"))
	wantBlobs(t, s, "after replacing m2", 2, 5000)
	// Replacing a message with one holding the same file keeps it.
	mustSave(t, s, "r2", "t2", file("m1", 1, c, a))
	wantBlobs(t, s, "after replacing with the same files", 2, 5000)

	// Deleting t1 keeps a, which t2 still holds, and t2 still reads it.
	if err := s.DeleteThread(ctx, "r1", "t1"); err != nil {
		t.Fatalf("DeleteThread(t1) = %v; want no error", err)
	}
	wantBlobs(t, s, "after deleting t1", 2, 5000)
	page := mustList(t, s, "r2", "t2", memory.ListMessagesOptions{})
	wantMessages(t, "ListMessages(t2)", page.Messages, []keel.Message{file("m1", 1, c, a)})

	if err := s.DeleteThread(ctx, "r2", "t2"); err != nil {
		t.Fatalf("DeleteThread(t2) = %v; want no error", err)
	}
	wantBlobs(t, s, "after deleting every thread", 0, 0)

	// An empty file is a blob like any other.
	mustCreate(t, s, memory.Thread{ID: "t3", ResourceID: "r1"})
	mustSave(t, s, "r1", "t3", file("e", 1, []byte{}))
	wantBlobs(t, s, "after saving an empty file", 1, 0)
}

// testBlobReadOnce loads a thread whose 20 messages hold the same two
// files: each is read once.
func testBlobReadOnce(t *testing.T, s memory.Store) {
	if _, ok := blobStats(t, s); !ok {
		t.Skipf("%T is not a memory.BlobReporter: its reads cannot be counted", s)
	}
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	a, b := Bytes(20, 3000), Bytes(21, 5000)
	var msgs []keel.Message
	for i := range 20 {
		msgs = append(msgs, file(fmt.Sprintf("m%02d", i), i, a, b), text(fmt.Sprintf("t%02d", i), i, "x"))
	}
	mustSave(t, s, "r1", "t1", msgs...)
	before, _ := blobStats(t, s)
	page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	after, _ := blobStats(t, s)
	if got := after.Reads - before.Reads; got != 2 {
		t.Errorf("Got(blob reads to load 40 messages holding 2 files) = %d; want 2", got)
	}
	wantMessages(t, "ListMessages()", page.Messages, msgs)
	before = after
	mustList(t, s, "r1", "t1", memory.ListMessagesOptions{PerPage: 10, Page: 3})
	after, _ = blobStats(t, s)
	if got := after.Reads - before.Reads; got != 2 {
		t.Errorf("Got(blob reads to load a page of 10 messages holding 2 files) = %d; want 2", got)
	}
}

// testConcurrentWriters saves from many goroutines at once, into one
// thread and into threads of their own; every message must be stored.
func testConcurrentWriters(t *testing.T, s memory.Store) {
	const writers, each = 8, 6
	mustCreate(t, s, memory.Thread{ID: "shared", ResourceID: "r1"})
	shared := Bytes(30, 10000)
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*2)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			own := fmt.Sprintf("own-%d", w)
			if _, err := s.CreateThread(ctx, memory.Thread{ID: own, ResourceID: "r1"}); err != nil {
				errs <- err
				return
			}
			for i := range each {
				m := file(fmt.Sprintf("w%d-%d", w, i), w*each+i, shared, Bytes(uint64(100+w), 100))
				if _, err := s.SaveMessages(ctx, "r1", "shared", []keel.Message{m}); err != nil {
					errs <- fmt.Errorf("save to shared: %w", err)
				}
				if _, err := s.SaveMessages(ctx, "r1", own, []keel.Message{m}); err != nil {
					errs <- fmt.Errorf("save to %s: %w", own, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Got(concurrent write) = %v; want no error", err)
	}
	page := mustList(t, s, "r1", "shared", memory.ListMessagesOptions{})
	if page.Total != writers*each || len(page.Messages) != writers*each {
		t.Fatalf("Got(ListMessages(shared).Total) = %d; want %d", page.Total, writers*each)
	}
	for w := range writers {
		own := mustList(t, s, "r1", fmt.Sprintf("own-%d", w), memory.ListMessagesOptions{})
		if own.Total != each {
			t.Errorf("Got(ListMessages(own-%d).Total) = %d; want %d", w, own.Total, each)
		}
	}
	for i, m := range page.Messages {
		if want := file(m.ID, i, shared, Bytes(uint64(100+i/each), 100)); diffMessage(m, want) != "" {
			t.Errorf("Got(message %d) differs: %s", i, diffMessage(m, want))
		}
	}
	if _, ok := blobStats(t, s); ok {
		wantBlobs(t, s, "after concurrent writes", 1+writers, 10000+writers*100)
	}
}

// testConcurrentCreate creates one thread ID from many goroutines: exactly
// one wins, the others get ErrConflict.
func testConcurrentCreate(t *testing.T, s memory.Store) {
	const n = 8
	var wg sync.WaitGroup
	results := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.CreateThread(context.Background(), memory.Thread{ID: "race", ResourceID: fmt.Sprintf("r%d", i)})
			results <- err
		}()
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch {
		case err == nil:
			won++
		default:
			wantErr(t, "CreateThread(race)", err, memory.ErrConflict)
		}
	}
	if won != 1 {
		t.Errorf("Got(successful concurrent CreateThread of one id) = %d; want 1", won)
	}
}
