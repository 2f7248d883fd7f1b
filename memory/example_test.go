package memory_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

func ExampleNewInMemory() {
	ctx := context.Background()
	s := memory.NewInMemory()
	defer s.Close()

	t, err := s.CreateThread(ctx, memory.Thread{ID: "thread-1", ResourceID: "alice", Title: "Report"})
	if err != nil {
		fmt.Println(err)
		return
	}
	report := keel.FilePart{Data: []byte("a,b\n1,2\n"), MediaType: "text/csv", Filename: "report.csv"}
	_, err = s.SaveMessages(ctx, "alice", t.ID, []keel.Message{
		{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Sum the columns."}, report}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err := s.ListMessages(ctx, "alice", t.ID, memory.ListMessagesOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := page.Messages[0].Parts[1].(keel.FilePart)
	fmt.Printf("%d message, file %s of %d bytes\n", page.Total, f.Filename, len(f.Data))

	// Another resource cannot see the thread.
	_, err = s.GetThread(ctx, "bob", t.ID)
	fmt.Println(errors.Is(err, memory.ErrNotFound))
	// Output:
	// 1 message, file report.csv of 8 bytes
	// true
}

func ExampleValidID() {
	fmt.Println(memory.ValidID("thread-1"), memory.ValidID("user:42"), memory.ValidID("a b"), memory.ValidID(""))
	// Output: true true false false
}

func ExampleEncodeMessage() {
	m := keel.Message{ID: "m1", Role: keel.RoleUser, Parts: []keel.Part{
		keel.FilePart{Data: []byte("hello"), Filename: "a.txt"},
		keel.FilePart{Data: []byte("hello"), Filename: "b.txt"},
	}}
	enc, blobs, err := memory.EncodeMessage(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The two files hold the same bytes: one blob.
	fmt.Println(len(blobs), enc.Digests[0] == memory.Digest([]byte("hello")))
	// Output: 1 true
}
