package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/stored"
)

func testNotFound(t *testing.T, s memory.Store) {
	ctx := context.Background()
	_, err := s.GetThread(ctx, "r1", "missing")
	wantErr(t, "GetThread(missing)", err, memory.ErrNotFound)
	_, err = s.ListMessages(ctx, "r1", "missing", memory.ListMessagesOptions{})
	wantErr(t, "ListMessages(missing)", err, memory.ErrNotFound)
	_, err = s.SaveMessages(ctx, "r1", "missing", []keel.Message{keel.UserText("hi")})
	wantErr(t, "SaveMessages(missing)", err, memory.ErrNotFound)
	_, err = s.UpdateThread(ctx, memory.Thread{ID: "missing", ResourceID: "r1", Title: "x"})
	wantErr(t, "UpdateThread(missing)", err, memory.ErrNotFound)
	err = s.DeleteThread(ctx, "r1", "missing")
	wantErr(t, "DeleteThread(missing)", err, memory.ErrNotFound)
	// SaveMessages on a missing thread must not create it.
	_, err = s.GetThread(ctx, "r1", "missing")
	wantErr(t, "GetThread(missing) after SaveMessages", err, memory.ErrNotFound)
	page, err := s.ListThreads(ctx, "r1", memory.ListThreadsOptions{})
	if err != nil || page.Total != 0 || len(page.Threads) != 0 || page.HasMore {
		t.Errorf("Got(ListThreads(no threads)) = %+v, %v; want an empty page", page, err)
	}
}

func testConflict(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1", Title: "first"})
	_, err := s.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1", Title: "second"})
	wantErr(t, "CreateThread(same id)", err, memory.ErrConflict)
	// IDs are global: another resource cannot take the ID either, and the
	// thread stays its owner's.
	_, err = s.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r2"})
	wantErr(t, "CreateThread(same id, other resource)", err, memory.ErrConflict)
	th, err := s.GetThread(ctx, "r1", "t1")
	if err != nil || th.Title != "first" {
		t.Errorf("Got(GetThread()) = %+v, %v; want the first thread", th, err)
	}
}

// testOwnership checks that every operation naming another resource sees
// nothing and changes nothing.
func testOwnership(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "alice-t", ResourceID: "alice", Title: "secret", CreatedAt: at(0), UpdatedAt: at(0)})
	mustSave(t, s, "alice", "alice-t", keel.Message{ID: "m1", Role: keel.RoleUser, CreatedAt: at(1), Parts: []keel.Part{keel.TextPart{Text: "private"}}})
	mustCreate(t, s, memory.Thread{ID: "bob-t", ResourceID: "bob"})
	before, err := s.GetThread(ctx, "alice", "alice-t")
	if err != nil {
		t.Fatalf("GetThread(alice) = %v; want no error", err)
	}

	_, err = s.GetThread(ctx, "bob", "alice-t")
	wantErr(t, "GetThread(bob, alice's thread)", err, memory.ErrNotFound)
	_, err = s.ListMessages(ctx, "bob", "alice-t", memory.ListMessagesOptions{})
	wantErr(t, "ListMessages(bob, alice's thread)", err, memory.ErrNotFound)
	_, err = s.SaveMessages(ctx, "bob", "alice-t", []keel.Message{{ID: "m1", Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "overwritten"}}}})
	wantErr(t, "SaveMessages(bob, alice's thread)", err, memory.ErrNotFound)
	_, err = s.UpdateThread(ctx, memory.Thread{ID: "alice-t", ResourceID: "bob", Title: "mine now"})
	wantErr(t, "UpdateThread(bob, alice's thread)", err, memory.ErrNotFound)
	err = s.DeleteThread(ctx, "bob", "alice-t")
	wantErr(t, "DeleteThread(bob, alice's thread)", err, memory.ErrNotFound)

	page, err := s.ListThreads(ctx, "bob", memory.ListThreadsOptions{})
	if err != nil || !slices.Equal(threadIDs(page.Threads), []string{"bob-t"}) || page.Total != 1 {
		t.Errorf("Got(ListThreads(bob)) = %q total %d, %v; want [bob-t] total 1", threadIDs(page.Threads), page.Total, err)
	}
	th, err := s.GetThread(ctx, "alice", "alice-t")
	if err != nil || th.Title != "secret" || !th.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("Got(GetThread(alice)) = %+v, %v; want the untouched thread", th, err)
	}
	msgs := mustList(t, s, "alice", "alice-t", memory.ListMessagesOptions{})
	if len(msgs.Messages) != 1 || msgs.Messages[0].Text() != "private" {
		t.Errorf("Got(ListMessages(alice)) = %+v; want the one untouched message", msgs.Messages)
	}
}

func testCreateThreadDefaults(t *testing.T, s memory.Store) {
	before := time.Now().Add(-time.Second)
	th := mustCreate(t, s, memory.Thread{ResourceID: "r1", Title: "no id"})
	after := time.Now().Add(time.Second)
	if !memory.ValidID(th.ID) {
		t.Errorf("Got(CreateThread().ID) = %q; want a valid generated id", th.ID)
	}
	for name, tm := range map[string]time.Time{"CreatedAt": th.CreatedAt, "UpdatedAt": th.UpdatedAt} {
		if tm.Before(before) || tm.After(after) || tm.Location() != time.UTC || !tm.Equal(stored.Time(tm)) {
			t.Errorf("Got(CreateThread().%s) = %v; want now, in UTC, to the millisecond", name, tm)
		}
	}
	got, err := s.GetThread(context.Background(), "r1", th.ID)
	if err != nil {
		t.Fatalf("GetThread(%q) = %v; want no error", th.ID, err)
	}
	if got.Title != "no id" || got.ResourceID != "r1" || !got.CreatedAt.Equal(th.CreatedAt) || !got.UpdatedAt.Equal(th.UpdatedAt) {
		t.Errorf("Got(GetThread()) = %+v; want %+v", got, th)
	}
	other := mustCreate(t, s, memory.Thread{ResourceID: "r1"})
	if other.ID == th.ID {
		t.Errorf("Got(CreateThread().ID) = %q twice; want distinct ids", th.ID)
	}
	// Given times are kept, to the millisecond.
	given := mustCreate(t, s, memory.Thread{ID: "given", ResourceID: "r1", CreatedAt: at(5).Add(123456 * time.Nanosecond), UpdatedAt: at(9)})
	if !given.CreatedAt.Equal(at(5)) || !given.UpdatedAt.Equal(at(9)) {
		t.Errorf("Got(CreateThread(given times)) = %v, %v; want %v, %v", given.CreatedAt, given.UpdatedAt, at(5), at(9))
	}
}

func testUpdateThread(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1", Title: "old", Metadata: map[string]any{"a": "1"}, CreatedAt: at(0), UpdatedAt: at(0)})
	upd, err := s.UpdateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1", Title: "new ✓", Metadata: map[string]any{"b": 2.0}})
	if err != nil {
		t.Fatalf("UpdateThread() = %v; want no error", err)
	}
	got, err := s.GetThread(ctx, "r1", "t1")
	if err != nil {
		t.Fatalf("GetThread() = %v; want no error", err)
	}
	for _, th := range []memory.Thread{upd, got} {
		if th.Title != "new ✓" || fmt.Sprint(th.Metadata) != "map[b:2]" || !th.CreatedAt.Equal(at(0)) || !th.UpdatedAt.After(at(0)) {
			t.Errorf("Got(thread after UpdateThread) = %+v; want the new title and metadata, the same CreatedAt, a later UpdatedAt", th)
		}
	}
	// Saving messages makes the thread recently updated.
	mustCreate(t, s, memory.Thread{ID: "t2", ResourceID: "r1", CreatedAt: at(0), UpdatedAt: at(0)})
	mustSave(t, s, "r1", "t2", keel.UserText("hi"))
	t2, err := s.GetThread(ctx, "r1", "t2")
	if err != nil || !t2.UpdatedAt.After(at(0)) {
		t.Errorf("Got(GetThread().UpdatedAt) = %v, %v after SaveMessages; want later than %v", t2.UpdatedAt, err, at(0))
	}
}

func testThreadPaging(t *testing.T, s memory.Store) {
	ctx := context.Background()
	for i := range 5 {
		mustCreate(t, s, memory.Thread{ID: fmt.Sprintf("t%d", i), ResourceID: "r1", CreatedAt: at(i), UpdatedAt: at(i)})
	}
	mustCreate(t, s, memory.Thread{ID: "other", ResourceID: "r2"})
	cases := []struct {
		opts      memory.ListThreadsOptions
		want      []string
		wantPer   int
		wantMore  bool
		wantTotal int
	}{
		{memory.ListThreadsOptions{}, []string{"t4", "t3", "t2", "t1", "t0"}, 100, false, 5},
		{memory.ListThreadsOptions{PerPage: 2}, []string{"t4", "t3"}, 2, true, 5},
		{memory.ListThreadsOptions{PerPage: 2, Page: 1}, []string{"t2", "t1"}, 2, true, 5},
		{memory.ListThreadsOptions{PerPage: 2, Page: 2}, []string{"t0"}, 2, false, 5},
		{memory.ListThreadsOptions{PerPage: 2, Page: 3}, []string{}, 2, false, 5},
		{memory.ListThreadsOptions{PerPage: 5}, []string{"t4", "t3", "t2", "t1", "t0"}, 5, false, 5},
		{memory.ListThreadsOptions{PerPage: 3, Page: 1, Ascending: true}, []string{"t3", "t4"}, 3, false, 5},
	}
	for _, c := range cases {
		page, err := s.ListThreads(ctx, "r1", c.opts)
		if err != nil {
			t.Errorf("Got(ListThreads(%+v)) = %v; want no error", c.opts, err)
			continue
		}
		got := threadIDs(page.Threads)
		if !slices.Equal(got, c.want) || page.Total != c.wantTotal || page.HasMore != c.wantMore || page.Page != c.opts.Page || page.PerPage != c.wantPer {
			t.Errorf("Got(ListThreads(%+v)) = %q total %d more %v page %d per %d; want %q total %d more %v page %d per %d",
				c.opts, got, page.Total, page.HasMore, page.Page, page.PerPage, c.want, c.wantTotal, c.wantMore, c.opts.Page, c.wantPer)
		}
	}
}

func testThreadOrdering(t *testing.T, s memory.Store) {
	ctx := context.Background()
	// Created in one order, updated in another; two share a creation time
	// and are ordered by ID.
	threads := []memory.Thread{
		{ID: "a", CreatedAt: at(1), UpdatedAt: at(30)},
		{ID: "b", CreatedAt: at(2), UpdatedAt: at(10)},
		{ID: "c", CreatedAt: at(3), UpdatedAt: at(20)},
		{ID: "d", CreatedAt: at(3), UpdatedAt: at(40)},
	}
	for _, th := range threads {
		th.ResourceID = "r1"
		mustCreate(t, s, th)
	}
	cases := []struct {
		opts memory.ListThreadsOptions
		want []string
	}{
		{memory.ListThreadsOptions{OrderBy: "createdAt", Ascending: true}, []string{"a", "b", "c", "d"}},
		{memory.ListThreadsOptions{OrderBy: "createdAt"}, []string{"d", "c", "b", "a"}},
		{memory.ListThreadsOptions{OrderBy: "updatedAt", Ascending: true}, []string{"b", "c", "a", "d"}},
		{memory.ListThreadsOptions{OrderBy: "updatedAt"}, []string{"d", "a", "c", "b"}},
	}
	for _, c := range cases {
		page, err := s.ListThreads(ctx, "r1", c.opts)
		if got := threadIDs(page.Threads); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Got(ListThreads(%+v)) = %q, %v; want %q", c.opts, got, err, c.want)
		}
	}
}

func testDeleteThread(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	mustCreate(t, s, memory.Thread{ID: "t2", ResourceID: "r1"})
	mustSave(t, s, "r1", "t1", keel.UserText("one"), keel.UserText("two"))
	mustSave(t, s, "r1", "t2", keel.Message{ID: "kept", Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "kept"}}})
	if err := s.DeleteThread(ctx, "r1", "t1"); err != nil {
		t.Fatalf("DeleteThread() = %v; want no error", err)
	}
	_, err := s.GetThread(ctx, "r1", "t1")
	wantErr(t, "GetThread(deleted)", err, memory.ErrNotFound)
	_, err = s.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
	wantErr(t, "ListMessages(deleted)", err, memory.ErrNotFound)
	err = s.DeleteThread(ctx, "r1", "t1")
	wantErr(t, "DeleteThread(deleted)", err, memory.ErrNotFound)

	// The ID is free again, and the new thread starts empty.
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r2"})
	if page := mustList(t, s, "r2", "t1", memory.ListMessagesOptions{}); page.Total != 0 {
		t.Errorf("Got(ListMessages(recreated)) = %d messages; want 0", page.Total)
	}
	if page := mustList(t, s, "r1", "t2", memory.ListMessagesOptions{}); !slices.Equal(ids(page.Messages), []string{"kept"}) {
		t.Errorf("Got(ListMessages(other thread)) = %q; want [kept]", ids(page.Messages))
	}
}

// testCancelled calls every operation with a cancelled context: each
// fails with the context's error and changes nothing.
func testCancelled(t *testing.T, s memory.Store) {
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1", Title: "kept"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.CreateThread(ctx, memory.Thread{ID: "t2", ResourceID: "r1"})
	wantErr(t, "CreateThread(cancelled)", err, context.Canceled)
	_, err = s.GetThread(ctx, "r1", "t1")
	wantErr(t, "GetThread(cancelled)", err, context.Canceled)
	_, err = s.ListThreads(ctx, "r1", memory.ListThreadsOptions{})
	wantErr(t, "ListThreads(cancelled)", err, context.Canceled)
	_, err = s.UpdateThread(ctx, memory.Thread{ID: "t1", ResourceID: "r1", Title: "changed"})
	wantErr(t, "UpdateThread(cancelled)", err, context.Canceled)
	_, err = s.SaveMessages(ctx, "r1", "t1", []keel.Message{keel.UserText("lost")})
	wantErr(t, "SaveMessages(cancelled)", err, context.Canceled)
	_, err = s.ListMessages(ctx, "r1", "t1", memory.ListMessagesOptions{})
	wantErr(t, "ListMessages(cancelled)", err, context.Canceled)
	err = s.DeleteThread(ctx, "r1", "t1")
	wantErr(t, "DeleteThread(cancelled)", err, context.Canceled)

	page, err := s.ListThreads(context.Background(), "r1", memory.ListThreadsOptions{})
	if err != nil || page.Total != 1 || page.Threads[0].Title != "kept" {
		t.Errorf("Got(ListThreads() after cancelled calls) = %+v, %v; want the one untouched thread", page, err)
	}
	if msgs := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{}); msgs.Total != 0 {
		t.Errorf("Got(ListMessages().Total) = %d after a cancelled save; want 0", msgs.Total)
	}
}
