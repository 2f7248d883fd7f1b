package memory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/keel-go/keel/memory"
)

// LocalLocks hold each thread's lock for one caller at a time: another
// waits until it is released or its context ends, and other threads are
// not held up.
func TestLocalLocks(t *testing.T) {
	var l memory.LocalLocks
	ctx := context.Background()
	unlock, err := l.LockThread(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = l.LockThread(short, "t1")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Got(LockThread(t1) while held) = %v; want a wait until the deadline", err)
	}
	other, err := l.LockThread(ctx, "t2")
	if err != nil {
		t.Fatalf("Got(LockThread(t2)) = %v; want it at once", err)
	}
	other()
	got := make(chan func())
	go func() {
		u, err := l.LockThread(ctx, "t1")
		if err != nil {
			t.Error(err)
		}
		got <- u
	}()
	select {
	case <-got:
		t.Fatal("Got(the lock) while held; want the waiter to wait")
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	unlock() // once only: a second call must not release the next holder
	var u2 func()
	select {
	case u2 = <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("Got(the lock) nothing 5 s after its release; want it")
	}
	short, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := l.LockThread(short, "t1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Got(LockThread(t1) after a double unlock) = %v; want it still held by the waiter", err)
	}
	u2()
}
