package memory_test

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// A window of the last messages is what an agent sends a model: the store
// reads only those rows, however long the thread.
func ExampleListMessagesOptions_last() {
	ctx := context.Background()
	s := memory.NewInMemory()
	defer s.Close()
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "t", ResourceID: "alice"}); err != nil {
		fmt.Println(err)
		return
	}
	for i := range 5 {
		if _, err := s.SaveMessages(ctx, "alice", "t", []keel.Message{keel.UserText(fmt.Sprint("turn ", i))}); err != nil {
			fmt.Println(err)
			return
		}
	}
	page, err := s.ListMessages(ctx, "alice", "t", memory.ListMessagesOptions{Last: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	threads, _ := s.ListThreads(ctx, "alice", memory.ListThreadsOptions{})
	fmt.Println(page.Messages[0].Text(), "/", page.Messages[1].Text(), "of", page.Total, "older:", page.HasMore)
	fmt.Println("thread holds", threads.Threads[0].MessageCount)
	// Output:
	// turn 3 / turn 4 of 5 older: true
	// thread holds 5
}

// Files come back with their SHA-256, computed once when they were saved.
func ExampleStore_fileDigest() {
	ctx := context.Background()
	s := memory.NewInMemory()
	defer s.Close()
	if _, err := s.CreateThread(ctx, memory.Thread{ID: "t", ResourceID: "alice"}); err != nil {
		fmt.Println(err)
		return
	}
	saved, err := s.SaveMessages(ctx, "alice", "t", []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.FilePart{Data: []byte("hello"), MediaType: "text/plain", Filename: "a.txt"},
	}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(saved[0].Parts[0].(keel.FilePart).SHA256)
	// Output: 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
}

// A ledger of refusals remembers, for every server on the store's
// database, which file types a model refused, until the entry expires.
func ExampleRefusalLedger() {
	ctx := context.Background()
	var ledger memory.RefusalLedger = memory.NewInMemory()
	learned := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	err := ledger.RecordRefusal(ctx, memory.Refusal{
		Provider: "google", Model: "gemini-2.5-flash", MediaType: "application/vnd.ms-excel; charset=binary",
		LearnedAt: learned, ExpiresAt: learned.Add(24 * time.Hour),
		Status: 400, Reason: "Unsupported MIME type: application/vnd.ms-excel",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, now := range []time.Time{learned.Add(time.Hour), learned.Add(25 * time.Hour)} {
		refused, err := ledger.Refusals(ctx, "google", "gemini-2.5-flash", now)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(len(refused), "refused type(s) at", now.Format(time.Kitchen))
		for _, r := range refused {
			fmt.Println(" ", r.MediaType, r.Status)
		}
	}
	n, _ := ledger.ForgetRefusals(ctx, memory.RefusalKey{Provider: "google", Model: "gemini-2.5-flash"})
	fmt.Println("forgot", n)
	// Output:
	// 1 refused type(s) at 1:00PM
	//   application/vnd.ms-excel 400
	// 0 refused type(s) at 1:00PM
	// forgot 1
}

// A turn accepted for a thread waits in the store until one runs it:
// oldest first, within the bounds per thread and per resource, and it
// survives the process that accepted it when the store does.
func ExampleTurnQueue() {
	ctx := context.Background()
	var q memory.TurnQueue = memory.NewInMemory()
	limits := memory.QueueLimits{PerThread: 2}
	for _, text := range []string{"first", "second", "third"} {
		err := q.QueueTurn(ctx, memory.QueuedTurn{ID: "run-" + text, AgentID: "assistant", ResourceID: "u1", ThreadID: "t1",
			Message: keel.UserText(text)}, limits)
		fmt.Println(text, errors.Is(err, memory.ErrFull))
	}
	next, _ := q.NextTurn(ctx, "t1")
	fmt.Println("next:", next.Message.Text())
	_ = q.RemoveTurn(ctx, next.ID) // once its message is in the thread
	next, _ = q.NextTurn(ctx, "t1")
	fmt.Println("then:", next.Message.Text())
	// Output:
	// first false
	// second false
	// third true
	// next: first
	// then: second
}

// LocalLocks lets one turn of a thread run at a time in a process; a
// store shared by several servers locks for all of them
// ([memory.ThreadLocker]).
func ExampleLocalLocks() {
	var locks memory.LocalLocks
	ctx := context.Background()
	unlock, _ := locks.LockThread(ctx, "t1")
	busy, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err := locks.LockThread(busy, "t1")
	fmt.Println("second turn while the first runs:", err)
	unlock()
	unlock, err = locks.LockThread(ctx, "t1")
	fmt.Println("after it:", err)
	unlock()
	// Output:
	// second turn while the first runs: context deadline exceeded
	// after it: <nil>
}
