package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/pgstore"
)

func ExampleOpen() {
	ctx := context.Background()
	// Every server of a deployment opens the same database.
	s, err := pgstore.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	if _, err := s.CreateThread(ctx, memory.Thread{ID: "thread-1", ResourceID: "alice", Title: "Budget"}); err != nil {
		log.Fatal(err)
	}
	msg := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Check the budget."},
		keel.FilePart{Data: []byte("a,b\n1,2\n"), MediaType: "text/csv", Filename: "budget.csv"},
	}}
	if _, err := s.SaveMessages(ctx, "alice", "thread-1", []keel.Message{msg}); err != nil {
		log.Fatal(err)
	}
	threads, err := s.ListThreads(ctx, "alice", memory.ListThreadsOptions{})
	if err != nil {
		log.Fatal(err)
	}
	page, err := s.ListMessages(ctx, "alice", "thread-1", memory.ListMessagesOptions{})
	if err != nil {
		log.Fatal(err)
	}
	f := page.Messages[0].Parts[1].(keel.FilePart)
	fmt.Println(threads.Threads[0].Title, f.Filename, len(f.Data))
	// Output: Budget budget.csv 8
}
