package anthropic

import (
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// FuzzClassify reads any status, type and message as the adapter reads
// an answer: it never panics, and a limit is never negative.
func FuzzClassify(f *testing.F) {
	for _, r := range providertest.AnthropicRefusals {
		f.Add(r.Reply.Status, "invalid_request_error", r.Reply.Body)
	}
	f.Add(400, "invalid_request_error", "messages.99999999999999999999.content.1.image: bad")
	f.Fuzz(func(t *testing.T, status int, typ, msg string) {
		got := classify(400+(status%200+200)%200, typ, msg, nil)
		if got.Limit < 0 {
			t.Errorf("Got(limit) = %d; want ≥ 0", got.Limit)
		}
		if got.Kind == keel.FaultNotFile && (got.MediaType != "" || got.Class != "") {
			t.Errorf("Got(%+v): a fault no file caused names a file", got)
		}
	})
}
