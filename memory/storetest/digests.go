package storetest

import (
	"context"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/internal/stored"
)

// testFileDigests checks that every file a store keeps inline comes back
// with its SHA-256, from SaveMessages and from ListMessages (pages and
// windows), and that a file kept by URL has none, whatever the caller
// gave.
func testFileDigests(t *testing.T, s memory.Store) {
	mustCreate(t, s, memory.Thread{ID: "t1", ResourceID: "r1"})
	pdf, csv := Bytes(40, 3000), []byte("a,b\n1,2\n")
	m := keel.Message{ID: "m1", Role: keel.RoleUser, CreatedAt: at(1), Parts: []keel.Part{
		keel.TextPart{Text: "files"},
		keel.FilePart{Data: pdf, MediaType: "application/pdf", Filename: "a.pdf", SHA256: "not the digest"},
		keel.FilePart{URL: keel.DataURL("text/csv", csv), MediaType: "text/csv"},
		keel.FilePart{Data: []byte{}, Filename: "empty.txt"},
		keel.FilePart{URL: "https://example.com/b.png", MediaType: "image/png", SHA256: "given"},
		keel.FilePart{Data: pdf, Filename: "again.pdf"},
	}}
	want := []string{"", stored.Digest(pdf), stored.Digest(csv), stored.Digest([]byte{}), "", stored.Digest(pdf)}
	check := func(call string, got keel.Message) {
		t.Helper()
		for i, p := range got.Parts {
			f, ok := p.(keel.FilePart)
			if ok && f.SHA256 != want[i] {
				t.Errorf("Got(%s part %d SHA256) = %q; want %q", call, i, f.SHA256, want[i])
			}
		}
	}
	check("SaveMessages", mustSave(t, s, "r1", "t1", m)[0])
	check("ListMessages", mustList(t, s, "r1", "t1", memory.ListMessagesOptions{}).Messages[0])
	check("ListMessages(Last 1)", mustList(t, s, "r1", "t1", memory.ListMessagesOptions{Last: 1}).Messages[0])
	if ts, ok := s.(memory.ThreadStarter); ok {
		_, saved, err := ts.StartThread(context.Background(), memory.Thread{ID: "t2", ResourceID: "r1"}, []keel.Message{m})
		if err != nil {
			t.Fatalf("StartThread() = %v; want no error", err)
		}
		check("StartThread", saved[0])
	}
	if f := m.Parts[1].(keel.FilePart); f.SHA256 != "not the digest" {
		t.Errorf("Got(caller's part after saving) SHA256 %q; want it untouched", f.SHA256)
	}
}
