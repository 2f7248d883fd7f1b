package server

import "testing"

// A subscription that ends leaves nothing of itself in the hub, and a
// thread nobody listens to any more no entry, so that its chunks are not
// encoded for nobody; the subscribers that stay keep theirs. Only the hub
// itself can tell: from outside, a leftover subscriber changes nothing but
// memory and the work of each chunk.
func TestThreadEventsUnsubscribeLeavesNothing(t *testing.T) {
	k := threadKey{agent: "support", resource: "r", thread: "t1"}
	tests := []struct {
		name          string
		subs, leave   int
		wantRemaining int
	}{
		{"none", 0, 0, 0},
		{"the only one leaves", 1, 1, 0},
		{"one of two leaves", 2, 1, 1},
		{"both leave", 2, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h threadEvents
			subs := make([]*subscriber, tt.subs)
			for i := range subs {
				subs[i] = h.subscribe(k)
			}
			for _, s := range subs[:tt.leave] {
				h.unsubscribe(k, s)
			}
			set, ok := h.subs[k]
			if len(set) != tt.wantRemaining || ok != (tt.wantRemaining > 0) {
				t.Errorf("Got(subscribers of the thread) = %d (entry %v); want %d (entry %v)", len(set), ok, tt.wantRemaining, tt.wantRemaining > 0)
			}
			for _, s := range subs[tt.leave:] {
				if _, in := set[s]; !in {
					t.Errorf("Got(a staying subscriber) gone; want it kept")
				}
			}
			if got := h.wanted(k); got != (tt.wantRemaining > 0) {
				t.Errorf("Got(wanted) = %v with %d subscribers and no bus; want %v", got, tt.wantRemaining, tt.wantRemaining > 0)
			}
		})
	}
}
