package pgstore_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/memory"
)

// A thread's lock is held against every store on the database, a
// waiter gets it when it is released, and a server that dies (its store
// closed, its connections gone) releases its locks.
func TestLockThreadAcrossServers(t *testing.T) {
	url := pgtest.Start(t)
	s1, s2 := open(t, url), open(t, url)
	ctx := context.Background()
	unlock, err := s1.LockThread(ctx, "t1")
	if err != nil {
		t.Fatalf("LockThread(t1) on server 1 = %v; want the lock", err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = s2.LockThread(short, "t1")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Got(LockThread(t1) on server 2 while 1 holds it) = %v; want it to wait until its deadline", err)
	}
	other, err := s2.LockThread(ctx, "t2")
	if err != nil {
		t.Fatalf("LockThread(t2) on server 2 = %v; want another thread's lock at once", err)
	}
	other()

	got := make(chan func(), 1)
	go func() {
		u, err := s2.LockThread(ctx, "t1")
		if err != nil {
			t.Errorf("LockThread(t1) on server 2 = %v; want it once released", err)
		}
		got <- u
	}()
	time.Sleep(100 * time.Millisecond) // server 2 waits in the database
	unlock()
	var unlock2 func()
	select {
	case unlock2 = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("Got(server 2's lock) nothing 10 s after server 1 released it; want the lock")
	}

	// Server 2 dies holding the lock: server 1 gets it.
	s2.Close()
	_ = unlock2 // never called: the process is gone
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	unlock, err = s1.LockThread(wait, "t1")
	if err != nil {
		t.Fatalf("LockThread(t1) on server 1 after server 2 died = %v; want the lock", err)
	}
	unlock()
}

// An event published on one server reaches the listeners of every
// server in order, one too large for a notification included.
func TestEventBusAcrossServers(t *testing.T) {
	url := pgtest.Start(t)
	s1, s2 := open(t, url), open(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan memory.Event, 16)
	listening := make(chan error, 1)
	go func() { listening <- s2.Listen(ctx, func(ev memory.Event) { got <- ev }) }()
	// Listen is ready once a published event comes back.
	deadline := time.Now().Add(10 * time.Second)
	for ready := false; !ready; {
		if time.Now().After(deadline) {
			t.Fatal("Got(listener) nothing after 10 s; want it listening")
		}
		if err := s1.Publish(ctx, memory.Event{Topic: "ping", Payload: []byte("x")}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-got:
			ready = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	large := []byte(strings.Repeat("é", 60_000)) // 120 KB, over a notification's 8000 bytes
	want := []memory.Event{{Topic: "thread", Payload: []byte("data: one")}, {Topic: "thread", Payload: large}, {Topic: "other", Payload: []byte("three")}}
	if err := s1.Publish(ctx, want[:2]...); err != nil {
		t.Fatalf("Publish = %v; want no error", err)
	}
	if err := s1.Publish(ctx, want[2]); err != nil {
		t.Fatalf("Publish = %v; want no error", err)
	}
	for i, w := range want {
		select {
		case ev := <-got:
			for ev.Topic == "ping" { // a late answer to the readiness probe
				ev = <-got
			}
			if ev.Topic != w.Topic || !bytes.Equal(ev.Payload, w.Payload) {
				t.Errorf("Got(event %d) = %s %.40q (%d bytes); want %s %.40q (%d bytes)", i, ev.Topic, ev.Payload, len(ev.Payload), w.Topic, w.Payload, len(w.Payload))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Got(event %d) nothing after 10 s; want it", i)
		}
	}
	for _, bad := range []memory.Event{{Topic: "", Payload: []byte("x")}, {Topic: "a\nb"}, {Topic: "t", Payload: []byte("nul\x00")}} {
		if err := s1.Publish(ctx, bad); !errors.Is(err, memory.ErrInvalid) {
			t.Errorf("Got(Publish(%q)) = %v; want memory.ErrInvalid", bad.Topic, err)
		}
	}
	cancel()
	if err := <-listening; !errors.Is(err, context.Canceled) {
		t.Errorf("Got(Listen after its context ended) = %v; want context.Canceled", err)
	}
}
