package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// roundTripMessages holds every part kind in every form a store must keep
// exactly.
func roundTripMessages() []keel.Message {
	big := Bytes(1, 10<<20)
	return []keel.Message{
		{ID: "m-text", Role: keel.RoleSystem, CreatedAt: at(1), Parts: []keel.Part{
			keel.TextPart{Text: "You are helpful. ünïcødé ✓ \x00 nul"},
			keel.TextPart{Text: ""},
		}},
		{ID: "m-files", Role: keel.RoleUser, CreatedAt: at(2), Metadata: map[string]any{
			"source": "upload", "n": 3.0, "nested": map[string]any{"ok": true, "list": []any{"a", 1.5, nil}},
		}, Parts: []keel.Part{
			keel.TextPart{Text: "here are the files"},
			keel.FilePart{Data: big, MediaType: "application/pdf", Filename: "big report.pdf"},
			keel.FilePart{Data: []byte{}, MediaType: "text/plain", Filename: "empty.txt"},
			keel.FilePart{Data: []byte("no name"), MediaType: "application/octet-stream"},
			keel.FilePart{Data: []byte{0xff, 0xfe, 0x00, 0x80}, Filename: "binary.bin"},
			keel.FilePart{URL: "https://example.com/a.png?x=1&y=2", MediaType: "image/png", Filename: "a.png"},
			keel.FilePart{URL: "http://example.com/b.txt"},
			keel.FilePart{URL: keel.DataURL("text/csv", []byte("a,b\n1,2\n")), MediaType: "text/csv", Filename: "t.csv"},
			keel.FilePart{URL: "data:text/plain,hello%20world"},
			keel.FilePart{URL: "data:text/plain;base64,aGVsbG8"},
			keel.FilePart{URL: "file-abc123", MediaType: "application/pdf"},
			keel.FilePart{URL: "gs://bucket/object", MediaType: "video/mp4", Filename: "ünïcødé.mp4"},
			keel.FilePart{MediaType: "text/plain", Filename: "nothing.txt"},
		}},
		{ID: "m-call", Role: keel.RoleAssistant, CreatedAt: at(3), Parts: []keel.Part{
			keel.TextPart{Text: "calling"},
			keel.ToolCallPart{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{ "path" : "/home/user/a.txt",  "n": 1.50 }`)},
			keel.ToolCallPart{ID: "call_2", Name: "noop"},
			keel.ToolCallPart{ID: "call_3", Name: "broken", Input: json.RawMessage(`{"path": "/a`)},
			keel.ToolCallPart{ID: "call_4", Name: "html", Input: json.RawMessage(`{"s":"<b>&</b>"}`)},
		}},
		{ID: "m-result", Role: keel.RoleTool, CreatedAt: at(4), Parts: []keel.Part{
			keel.ToolResultPart{CallID: "call_1", Name: "read_file", Output: json.RawMessage(`"line 1\nline 2"`)},
			keel.ToolResultPart{CallID: "call_2", Name: "noop", Output: json.RawMessage(`"failed: no such tool"`), IsError: true},
			keel.ToolResultPart{CallID: "call_3", Name: "broken"},
		}},
		{ID: "m-empty", Role: keel.RoleAssistant, CreatedAt: at(5), Parts: []keel.Part{}, Metadata: map[string]any{}},
		{ID: "m-nil", Role: keel.RoleAssistant, CreatedAt: at(6)},
	}
}

func testRoundTrip(t *testing.T, s memory.Store) {
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	want := roundTripMessages()
	saved := mustSave(t, s, "r1", "t1", want...)
	wantMessages(t, "SaveMessages", saved, want)
	page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	wantMessages(t, "ListMessages", page.Messages, want)
}

// testCopies checks that neither the caller's values nor the returned ones
// alias the store's state.
func testCopies(t *testing.T, s memory.Store) {
	ctx := context.Background()
	meta := map[string]any{"k": "v"}
	th := mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1", Title: "title", Metadata: meta})
	meta["k"] = "changed"
	th.Metadata["k"] = "changed too"

	data := []byte("original")
	input := json.RawMessage(`{"a":1}`)
	msgMeta := map[string]any{"k": "v"}
	mustSave(t, s, "r1", "t1", keel.Message{ID: "m1", Role: keel.RoleUser, CreatedAt: at(1), Metadata: msgMeta, Parts: []keel.Part{
		keel.FilePart{Data: data, Filename: "f"},
		keel.ToolCallPart{ID: "c", Name: "n", Input: input},
	}})
	copy(data, "CHANGED!")
	copy(input, `{"b":2}`)
	msgMeta["k"] = "changed"

	first := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	f := first.Messages[0].Parts[0].(keel.FilePart)
	copy(f.Data, "CHANGED!")
	first.Messages[0].Metadata["k"] = "changed"
	first.Messages[0].Parts[0] = keel.TextPart{Text: "replaced"}

	got := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	wantMessages(t, "ListMessages after changing values", got.Messages, []keel.Message{
		{ID: "m1", Role: keel.RoleUser, CreatedAt: at(1), Metadata: map[string]any{"k": "v"}, Parts: []keel.Part{
			keel.FilePart{Data: []byte("original"), Filename: "f"},
			keel.ToolCallPart{ID: "c", Name: "n", Input: json.RawMessage(`{"a":1}`)},
		}},
	})
	gotThread, err := s.GetThread(ctx, "r1", "t1")
	if err != nil {
		t.Fatalf("GetThread() = %v; want no error", err)
	}
	if gotThread.Metadata["k"] != "v" {
		t.Errorf("Got(GetThread().Metadata[k]) = %v; want v", gotThread.Metadata["k"])
	}
}

func testInvalidInput(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	long := strings.Repeat("a", memory.MaxIDLength+1)
	user := func(parts ...keel.Part) keel.Message { return keel.Message{Role: keel.RoleUser, Parts: parts} }

	threads := []struct {
		name string
		th   memory.Thread
	}{
		{"empty resource", memory.Thread{ID: "t2"}},
		{"resource with space", memory.Thread{ID: "t2", ResourceID: "a b"}},
		{"thread id with slash", memory.Thread{ID: "a/b", ResourceID: "r1"}},
		{"thread id too long", memory.Thread{ID: long, ResourceID: "r1"}},
		{"thread id ..", memory.Thread{ID: "..", ResourceID: "r1"}},
		{"thread id .", memory.Thread{ID: ".", ResourceID: "r1"}},
		{"resource ..", memory.Thread{ID: "t2", ResourceID: ".."}},
		{"non-UTF-8 title", memory.Thread{ID: "t2", ResourceID: "r1", Title: "bad \xff title"}},
		{"title with NUL", memory.Thread{ID: "t2", ResourceID: "r1", Title: "bad \x00 title"}},
		{"metadata not JSON", memory.Thread{ID: "t2", ResourceID: "r1", Metadata: map[string]any{"f": func() {}}}},
		{"metadata not UTF-8", memory.Thread{ID: "t2", ResourceID: "r1", Metadata: map[string]any{"k": []any{"ok", "\xff"}}}},
	}
	for _, c := range threads {
		_, err := s.CreateThread(ctx, c.th)
		wantErr(t, "CreateThread("+c.name+")", err, memory.ErrInvalid)
		upd := c.th
		if upd.ID == "t2" {
			upd.ID = "t1"
		}
		_, err = s.UpdateThread(ctx, upd)
		wantErr(t, "UpdateThread("+c.name+")", err, memory.ErrInvalid)
	}

	messages := []struct {
		name string
		msgs []keel.Message
	}{
		{"non-UTF-8 file name", []keel.Message{user(keel.FilePart{Data: []byte("x"), Filename: "r\xe9sum\xe9.pdf"})}},
		{"non-UTF-8 media type", []keel.Message{user(keel.FilePart{Data: []byte("x"), MediaType: "text/\xff"})}},
		{"non-UTF-8 text", []keel.Message{user(keel.TextPart{Text: "\xc3\x28"})}},
		{"non-UTF-8 tool input", []keel.Message{{Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolCallPart{ID: "c", Name: "n", Input: json.RawMessage("\"\xff\"")}}}}},
		{"file with data and URL", []keel.Message{user(keel.FilePart{Data: []byte("x"), URL: "https://example.com/x"})}},
		{"nil part", []keel.Message{user(nil)}},
		{"pointer part", []keel.Message{user(&keel.TextPart{Text: "x"})}},
		{"unknown role", []keel.Message{{Role: "robot", Parts: []keel.Part{keel.TextPart{Text: "x"}}}}},
		{"empty role", []keel.Message{{Parts: []keel.Part{keel.TextPart{Text: "x"}}}}},
		{"bad message id", []keel.Message{{ID: "id with space", Role: keel.RoleUser}}},
		{"message id too long", []keel.Message{{ID: long, Role: keel.RoleUser}}},
		{"same id twice", []keel.Message{{ID: "m1", Role: keel.RoleUser}, {ID: "m1", Role: keel.RoleUser}}},
		{"metadata not JSON", []keel.Message{{Role: keel.RoleUser, Metadata: map[string]any{"c": make(chan int)}}}},
		{"metadata key not UTF-8", []keel.Message{{Role: keel.RoleUser, Metadata: map[string]any{"\xfe": "v"}}}},
	}
	for _, c := range messages {
		_, err := s.SaveMessages(ctx, "r1", "t1", c.msgs)
		wantErr(t, "SaveMessages("+c.name+")", err, memory.ErrInvalid)
	}

	bad := []struct {
		name     string
		resource string
		thread   string
	}{
		{"bad resource", "r 1", "t1"},
		{"bad thread", "r1", "t\n1"},
		{"empty thread", "r1", ""},
	}
	for _, c := range bad {
		_, err := s.GetThread(ctx, c.resource, c.thread)
		wantErr(t, "GetThread("+c.name+")", err, memory.ErrInvalid)
		_, err = s.ListMessages(ctx, c.resource, c.thread, memory.ListMessagesOptions{})
		wantErr(t, "ListMessages("+c.name+")", err, memory.ErrInvalid)
		_, err = s.SaveMessages(ctx, c.resource, c.thread, []keel.Message{keel.UserText("x")})
		wantErr(t, "SaveMessages("+c.name+")", err, memory.ErrInvalid)
		err = s.DeleteThread(ctx, c.resource, c.thread)
		wantErr(t, "DeleteThread("+c.name+")", err, memory.ErrInvalid)
	}
	_, err := s.ListThreads(ctx, "", memory.ListThreadsOptions{})
	wantErr(t, "ListThreads(empty resource)", err, memory.ErrInvalid)
	_, err = s.UpdateThread(ctx, memory.Thread{ResourceID: "r1", Title: "no id"})
	wantErr(t, "UpdateThread(empty thread id)", err, memory.ErrInvalid)

	pages := []memory.ListThreadsOptions{{Page: -1}, {PerPage: -1}, {OrderBy: "title"}}
	for _, o := range pages {
		_, err := s.ListThreads(ctx, "r1", o)
		wantErr(t, fmt.Sprintf("ListThreads(%+v)", o), err, memory.ErrInvalid)
	}
	for _, o := range []memory.ListMessagesOptions{{Page: -1}, {PerPage: -2}} {
		_, err := s.ListMessages(ctx, "r1", "t1", o)
		wantErr(t, "ListMessages(negative page)", err, memory.ErrInvalid)
	}

	// The thread is untouched by all of it.
	page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	if page.Total != 0 {
		t.Errorf("Got(ListMessages().Total) = %d after refused saves; want 0", page.Total)
	}
	th, err := s.GetThread(ctx, "r1", "t1")
	if err != nil || th.Title != "" {
		t.Errorf("Got(GetThread()) = %+v, %v after refused updates; want an untouched thread", th, err)
	}
}

// testNothingHalfWritten saves a batch whose last message is refused: none
// of it may be stored, nor any of its files.
func testNothingHalfWritten(t *testing.T, s memory.Store) {
	ctx := context.Background()
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	before, hasBlobs := blobStats(t, s)
	_, err := s.SaveMessages(ctx, "r1", "t1", []keel.Message{
		{ID: "ok1", Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: Bytes(7, 4096), Filename: "fine.bin"}}},
		{ID: "ok2", Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "fine"}}},
		{ID: "bad", Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: []byte("x"), Filename: "\xff.txt"}}},
	})
	wantErr(t, "SaveMessages(batch with a bad file name)", err, memory.ErrInvalid)
	page := mustList(t, s, "r1", "t1", memory.ListMessagesOptions{})
	if page.Total != 0 || len(page.Messages) != 0 {
		t.Errorf("Got(ListMessages()) = %d messages %q; want none", page.Total, ids(page.Messages))
	}
	if hasBlobs {
		after, _ := blobStats(t, s)
		if after.Blobs != before.Blobs || after.Bytes != before.Bytes {
			t.Errorf("Got(BlobStats()) = %+v after a refused save; want %+v", after, before)
		}
	}
}
