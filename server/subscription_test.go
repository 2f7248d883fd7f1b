package server_test

import (
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
