package sqlitestore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "keel")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "keel.db")
	ctx := context.Background()

	s, err := sqlitestore.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "thread-1", ResourceID: "alice"}); err != nil {
		log.Fatal(err)
	}
	sheet := keel.FilePart{Data: []byte("PK\x03\x04..."), MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Filename: "budget.xlsx"}
	msg := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Check the budget."}, sheet}}
	if _, err := s.SaveMessages(ctx, "alice", "thread-1", []keel.Message{msg}); err != nil {
		log.Fatal(err)
	}
	s.Close()

	// After a restart, the file is still in the thread.
	s, err = sqlitestore.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	page, err := s.ListMessages(ctx, "alice", "thread-1", memory.ListMessagesOptions{})
	if err != nil {
		log.Fatal(err)
	}
	f := page.Messages[0].Parts[1].(keel.FilePart)
	fmt.Println(f.Filename, len(f.Data))
	// Output: budget.xlsx 7
}
