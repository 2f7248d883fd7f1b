package server_test

import (
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/server"
)

// A quiet subscription gets ": ping" every Config.KeepAlive, and none
// when keep-alives are off.
func TestStudioSubscriptionKeepAlive(t *testing.T) {
	tests := []struct {
		name      string
		keepAlive time.Duration
		wantPing  bool
	}{
		{"every 20 ms", 20 * time.Millisecond, true},
		{"off", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.KeepAlive = tt.keepAlive }})
			sub := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
			// Off, nothing may come in a window many times the 20 ms;
			// on, the first ping may be late on a loaded machine.
			wait := 10 * time.Second
			if !tt.wantPing {
				wait = 300 * time.Millisecond
			}
			select {
			case b, ok := <-sub.blocks:
				switch {
				case !ok:
					t.Errorf("Got(subscription) closed; want it open")
				case !tt.wantPing || b != ": ping":
					t.Errorf("Got(quiet subscription's block) = %q; want %v", b, map[bool]string{true: `": ping"`, false: "nothing"}[tt.wantPing])
				}
			case <-time.After(wait):
				if tt.wantPing {
					t.Errorf("Got(quiet subscription) nothing in %v; want a ping every %v", wait, tt.keepAlive)
				}
			}
		})
	}
}

// A subscriber that leaves takes only itself off its thread: the others
// still get the thread's turns.
func TestStudioSubscriberLeavingKeepsTheOthers(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "still here 6620"})})
	stays := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
	before := runtime.NumGoroutine()
	leaves := e.subscribe(t, `{"resourceId":"support","threadId":"t1"}`)
	leaves.cancel()
	// The subscription's handler has returned (and unsubscribed) once the
	// goroutines are back to what they were before it.
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("Got(goroutines after a subscriber left) = %d; want at most %d", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond) // polling the count, not synchronising
	}
	status, body := e.do("POST", "/api/agents/support/send-message", sendBody("anyone?"))
	wantStatus(t, "send-message", status, body, http.StatusOK)
	if got := chunkText(stays.turn()); got != "still here 6620" {
		t.Errorf("Got(remaining subscriber's turn) = %q; want the answer", got)
	}
}
