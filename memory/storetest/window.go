package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// testWindow checks ListMessagesOptions.Last: the end of the thread's
// order, oldest first, however the messages were saved, with the count of
// them all and whether older ones exist.
func testWindow(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	mustCreate(t, s, memory.Thread{ID: "empty", ResourceID: "r1"})
	// Out of time order, two at one time, and a call with its result
	// saved last, without times, in one call.
	mustSave(t, s, "r1", "t1", text("m4", 4, "x"), text("m1", 1, "x"), text("m3a", 3, "x"), text("m3b", 3, "x"))
	mustSave(t, s, "r1", "t1", text("m2", 2, "x"))
	call := keel.Message{ID: "call", Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolCallPart{ID: "c1", Name: "read", Input: json.RawMessage(`{}`)}}}
	result := keel.Message{ID: "result", Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "c1", Name: "read", Output: json.RawMessage(`"ok"`)}}}
	mustSave(t, s, "r1", "t1", call, result)
	// Replacing a message without a time keeps its place.
	mustSave(t, s, "r1", "t1", keel.Message{ID: "m3a", Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "replaced"}}})
	all := ids(mustList(t, s, "r1", "t1", memory.ListMessagesOptions{}).Messages)
	if want := []string{"m1", "m2", "m3a", "m3b", "m4", "call", "result"}; !slices.Equal(all, want) {
		t.Fatalf("Got(ListMessages()) = %q; want %q", all, want)
	}
	for _, last := range []int{1, 2, 3, 6, 7, 8, 100} {
		page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{Last: last})
		want := all[max(0, len(all)-last):]
		if got := ids(page.Messages); !slices.Equal(got, want) || page.Total != len(all) || page.HasMore != (last < len(all)) || page.Page != 0 || page.PerPage != 0 {
			t.Errorf("Got(ListMessages(Last %d)) = %q total %d more %v page %d per %d; want %q total %d more %v",
				last, got, page.Total, page.HasMore, page.Page, page.PerPage, want, len(all), last < len(all))
		}
	}
	page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{Last: 2})
	wantMessages(t, "ListMessages(Last 2)", page.Messages, []keel.Message{
		withTime(call, page.Messages[0].CreatedAt), withTime(result, page.Messages[1].CreatedAt)})
	if page := mustList(t, s, "r1", "empty", memory.ListMessagesOptions{Last: 10}); page.Messages == nil || len(page.Messages) != 0 || page.Total != 0 || page.HasMore {
		t.Errorf("Got(ListMessages(empty thread, Last 10)) = %#v; want no messages, a non-nil list", page)
	}

	for _, opts := range []memory.ListMessagesOptions{{Last: -1}, {Last: 2, PerPage: 2}, {Last: 2, Page: 1}} {
		_, err := s.ListMessages(ctx, "r1", "t1", opts)
		wantErr(t, fmt.Sprintf("ListMessages(%+v)", opts), err, memory.ErrInvalid)
	}
	_, err := s.ListMessages(ctx, "r2", "t1", memory.ListMessagesOptions{Last: 2})
	wantErr(t, "ListMessages(another resource's thread, Last 2)", err, memory.ErrNotFound)
}

// withTime returns m with the time a store gave it.
func withTime(m keel.Message, t time.Time) keel.Message {
	m.CreatedAt = t
	return m
}
