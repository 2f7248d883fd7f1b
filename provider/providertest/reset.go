package providertest

import (
	"syscall"
	"testing"
)

// testResetMidEvent checks that a connection reset in the middle of an
// answer, inside a streamed event or half way through a body, is a
// retryable APICallError whose cause is the reset (syscall.ECONNRESET,
// which keel's stream retry treats as a connection reset), whatever the
// SDK made of the half event it got.
func testResetMidEvent(t *testing.T, h Harness) {
	stream := h.StreamText("one two three four")
	stream.ResetAfter = EventCut(stream.Body, 2)
	if stream.ResetAfter < 0 {
		t.Fatalf("Got(harness StreamText events) = fewer than 2; want a stream of several events")
	}
	body := h.Text("one two three four")
	body.ResetAfter = len(body.Body) / 2
	for _, tc := range []struct {
		name   string
		reply  Reply
		stream bool
	}{
		{"inside a streamed event", stream, true},
		{"half way through a body", body, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, tc.reply)
			_, err := answer(t, h.NewModel(t, s.URL(), Timeouts{}), tc.stream)
			wantBrokenCall(t, h, err, syscall.ECONNRESET)
		})
	}
}
