package keel

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// CallProgress is how far the model calls made under one context got,
// for a caller that bounds a run as a whole (a server that must answer
// before a proxy in front of it gives up) and must say, when the bound
// passes, what stalled. keel's provider adapters report each call's HTTP
// exchange to the CallProgress their request's context carries (see
// [WithCallProgress]); a model of another kind reports nothing. Its
// methods may be called on a nil *CallProgress, which records nothing. It
// is safe for concurrent use; the zero value is ready.
type CallProgress struct {
	mu    sync.Mutex
	host  string
	state callState
	since time.Time // when the state began, or when the last byte came
	bytes int64
}

type callState int

const (
	callNone      callState = iota // no call made yet
	callSending                    // the request is being sent
	callWaiting                    // sent; nothing of the answer yet
	callReceiving                  // the answer has begun
	callEnded                      // the call is over
)

type callProgressKey struct{}

// WithCallProgress returns ctx carrying p, to which the model calls made
// with the context report.
func WithCallProgress(ctx context.Context, p *CallProgress) context.Context {
	return context.WithValue(ctx, callProgressKey{}, p)
}

// CallProgressFrom returns the [CallProgress] ctx carries, or nil.
func CallProgressFrom(ctx context.Context) *CallProgress {
	p, _ := ctx.Value(callProgressKey{}).(*CallProgress)
	return p
}

func (p *CallProgress) set(state callState, host string, n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if host != "" {
		p.host, p.bytes = host, 0
	}
	p.state, p.since = state, time.Now()
	p.bytes += n
}

// Sending reports that a call's request to host is being sent.
func (p *CallProgress) Sending(host string) { p.set(callSending, host, 0) }

// Waiting reports that a call's request went out whole (to host, when
// not "": a call with no body to send begins here), and that its answer
// is awaited.
func (p *CallProgress) Waiting(host string) { p.set(callWaiting, host, 0) }

// Received reports that n more bytes of the answer came (0 for its
// headers).
func (p *CallProgress) Received(n int) { p.set(callReceiving, "", int64(n)) }

// Ended reports that the call is over. A call the caller's context cut
// is not reported ended: what it was doing then is what
// [CallProgress.Stalled] tells.
func (p *CallProgress) Ended() { p.set(callEnded, "", 0) }

// Stalled says, at now, what the calls were doing: what a bound that
// passed at now cut short.
func (p *CallProgress) Stalled(now time.Time) string {
	if p == nil {
		return "the model reports no progress"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	d := now.Sub(p.since).Round(10 * time.Millisecond)
	switch p.state {
	case callSending:
		return fmt.Sprintf("the request to %s was still being sent after %v", p.host, d)
	case callWaiting:
		return fmt.Sprintf("%s sent no byte of its answer in %v", p.host, d)
	case callReceiving:
		return fmt.Sprintf("the answer of %s stopped after %d bytes: nothing came for %v", p.host, p.bytes, d)
	case callEnded:
		return fmt.Sprintf("no model call was running: the last one, to %s, ended %v before (a tool, the sandbox, the store or a retry's wait had the time)", p.host, d)
	default:
		return "no model call had been made"
	}
}
