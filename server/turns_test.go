package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/server"
)

// roles lists a thread's messages as role:text.
func roles(t *testing.T, mem memory.Store, resource, thread string) []string {
	t.Helper()
	page, err := mem.ListMessages(context.Background(), resource, thread, memory.ListMessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range page.Messages {
		out = append(out, string(m.Role)+":"+m.Text())
	}
	return out
}

// A message accepted by send-message is in the store before the answer:
// in the thread once its turn started, in the queue while it waits. The
// queue keeps its bounds: past them a message is 409 and nothing is kept.
// unqueued waits until the thread's started turn has left the queue: the
// server takes it off beside the model's call, not before it, and the
// bounds count the turns that wait, not one that just started.
func unqueued(t *testing.T, mem *memory.InMemory, thread string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := mem.NextTurn(context.Background(), thread); errors.Is(err, memory.ErrNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's started turn is still queued after 10 s", thread)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStudioQueueStoredAndBounded(t *testing.T) {
	m := &gatedModel{started: make(chan []keel.Message, 8), release: make(chan string)}
	mem := memory.NewInMemory()
	e := newEnv(t, envOptions{model: m, mem: mem, config: func(c *server.Config) {
		c.TurnQueue = memory.QueueLimits{PerThread: 2, PerResource: 3}
	}})
	send := func(thread, text string) (int, []byte) {
		body := strings.Replace(sendBody(text), `"threadId":"t1"`, `"threadId":"`+thread+`"`, 1)
		return e.do("POST", "/api/agents/support/send-message", body)
	}
	status, body := send("t1", "first")
	wantStatus(t, "first", status, body, http.StatusOK)
	<-m.started // running: out of the queue, in the thread
	unqueued(t, mem, "t1")
	for _, text := range []string{"second", "third"} {
		status, body = send("t1", text)
		wantStatus(t, text, status, body, http.StatusOK)
	}
	status, body = send("t1", "fourth")
	wantError(t, "a fourth while two wait", status, body, http.StatusConflict, "too many messages wait")
	status, body = send("t2", "a")
	wantStatus(t, "another thread of the resource", status, body, http.StatusOK)
	<-m.started // t2's first runs at once
	unqueued(t, mem, "t2")
	status, body = send("t2", "b")
	wantStatus(t, "a third wait of the resource", status, body, http.StatusOK)
	status, body = send("t2", "c")
	wantError(t, "a fourth wait of the resource", status, body, http.StatusConflict, "too many messages wait")

	if got := roles(t, mem, "support", "t1"); strings.Join(got, " ") != "user:first" {
		t.Errorf("Got(thread t1 while its first turn runs) = %q; want its message, and no other", got)
	}
	next, err := mem.NextTurn(context.Background(), "t1")
	if err != nil || next.Message.Text() != "second" {
		t.Errorf("Got(next queued of t1) = %q, %v; want second", next.Message.Text(), err)
	}
	// Let every turn run: five model calls in all, two at a time.
	go func() {
		for range 5 {
			m.release <- "answer"
		}
	}()
	for range 3 {
		<-m.started
	}
	deadline := time.Now().Add(10 * time.Second)
	want := "user:first assistant:answer user:second assistant:answer user:third assistant:answer"
	for strings.Join(roles(t, mem, "support", "t1"), " ") != want {
		if time.Now().After(deadline) {
			t.Fatalf("Got(thread t1) = %q; want %s", roles(t, mem, "support", "t1"), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Two /generate turns sent at once to one thread on a SQLite store are
// stored one after the other, never interleaved: the second waits for
// the first, and its model sees the first's answer.
func TestGenerateTurnsInOrder(t *testing.T) {
	store, err := sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var mu sync.Mutex
	calls := 0
	model := keeltest.NewModel(keeltest.Reply{Respond: func(req *keel.Request) keeltest.Reply {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		time.Sleep(200 * time.Millisecond)
		return keeltest.Reply{Text: "answer " + string(rune('0'+n)) + " to " + req.Messages[len(req.Messages)-1].Text()}
	}})
	model.RepeatLast = true
	e := newEnv(t, envOptions{model: model, mem: store})
	var wg sync.WaitGroup
	for _, q := range []string{"A", "B"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, body := e.do("POST", "/api/agents/support/generate", `{"memory":{"thread":"t1","resource":"r"},"messages":"`+q+`"}`)
			if status != http.StatusOK {
				t.Errorf("Got(generate %s) = %d %s; want 200", q, status, body)
			}
		}()
	}
	wg.Wait()
	got := roles(t, store, "r", "t1")
	if len(got) != 4 || !strings.HasPrefix(got[0], "user:") || !strings.HasPrefix(got[1], "assistant:") ||
		!strings.HasPrefix(got[2], "user:") || !strings.HasPrefix(got[3], "assistant:") ||
		!strings.HasSuffix(got[1], "to "+strings.TrimPrefix(got[0], "user:")) || !strings.HasSuffix(got[3], "to "+strings.TrimPrefix(got[2], "user:")) {
		t.Errorf("Got(thread) = %q; want user, assistant, user, assistant, each answer after its question", got)
	}
}

// Turns a server accepted and did not run are run by the next server to
// start on the store; Serve's shutdown cancels a turn still running
// after the grace, and waits for it.
func TestQueuedTurnsRecoveredAndShutdownCancels(t *testing.T) {
	mem := memory.NewInMemory()
	stuck := &gatedModel{started: make(chan []keel.Message, 8), release: make(chan string)}
	first := newEnv(t, envOptions{model: stuck, mem: mem})
	for _, text := range []string{"one", "two", "three"} {
		status, body := first.do("POST", "/api/agents/support/send-message", sendBody(text))
		wantStatus(t, text, status, body, http.StatusOK)
	}
	<-stuck.started // "one" runs on the first server, which then dies with it

	next := &gatedModel{started: make(chan []keel.Message, 8), release: make(chan string)}
	a := must(agent.New(agent.Config{ID: "support", Model: next, Memory: mem, Logger: quietLogger()}))
	srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger(), ShutdownGrace: 300 * time.Millisecond}))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	select {
	case <-next.started:
	case <-time.After(10 * time.Second):
		t.Fatal("Got(recovered turns) none in 10 s; want the queued ones run")
	}
	next.release <- "answer two"
	var prompt []keel.Message
	select {
	case prompt = <-next.started:
	case <-time.After(10 * time.Second):
		t.Fatal("Got(third turn) none in 10 s; want it after the second")
	}
	if last := prompt[len(prompt)-1].Text(); last != "three" {
		t.Errorf("Got(third turn's message) = %q; want three", last)
	}
	start := time.Now()
	cancel() // the third turn is still waiting for its model
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Got(Serve) = %v; want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Got(Serve) still running 10 s after its context ended; want the turn cancelled after the grace")
	}
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Errorf("Got(shutdown) after %v; want the turn given the 300 ms grace first", took)
	}
	got := roles(t, mem, "support", "t1")
	if want := "user:one user:two assistant:answer two user:three"; strings.Join(got, " ") != want {
		t.Errorf("Got(thread) = %q; want %s: every accepted message kept", got, want)
	}
	if _, err := mem.NextTurn(context.Background(), "t1"); err == nil {
		t.Errorf("Got(queue after the turns ran) a turn; want none")
	}
}

// A queued turn whose message a server stored before it died, without
// taking the turn off the queue, is taken off by the next server and not
// run again; a queued turn whose message is not in its thread runs, even
// when the thread has other messages.
func TestRecoveredTurnStoredAlreadyNotRunAgain(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewInMemory()
	if _, err := mem.CreateThread(ctx, memory.Thread{ID: "t1", ResourceID: "support"}); err != nil {
		t.Fatal(err)
	}
	stored := keel.UserText("stored already")
	stored.ID = memory.NewID()
	if _, err := mem.SaveMessages(ctx, "support", "t1", []keel.Message{stored}); err != nil {
		t.Fatal(err)
	}
	waiting := keel.UserText("never stored")
	waiting.ID = memory.NewID()
	for _, m := range []keel.Message{stored, waiting} {
		turn := memory.QueuedTurn{ID: memory.NewID(), AgentID: "support", ResourceID: "support", ThreadID: "t1", Message: m,
			Options: []byte(`{}`), QueuedAt: time.Now()}
		if err := mem.QueueTurn(ctx, turn, memory.QueueLimits{}); err != nil {
			t.Fatal(err)
		}
	}
	model := keeltest.NewModel(keeltest.Reply{Text: "answer"})
	a := must(agent.New(agent.Config{ID: "support", Model: model, Memory: mem, Logger: quietLogger()}))
	srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger()}))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	want := "user:stored already user:never stored assistant:answer"
	for deadline := time.Now().Add(10 * time.Second); strings.Join(roles(t, mem, "support", "t1"), " ") != want; {
		if time.Now().After(deadline) {
			t.Fatalf("Got(thread) = %q; want %s", roles(t, mem, "support", "t1"), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	unqueued(t, mem, "t1")
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Got(Serve) = %v; want nil", err)
	}
	if got := strings.Join(roles(t, mem, "support", "t1"), " "); got != want || model.Calls() != 1 {
		t.Errorf("Got(thread, model calls) = %q, %d; want %s, 1: the stored turn not run again", got, model.Calls(), want)
	}
}
