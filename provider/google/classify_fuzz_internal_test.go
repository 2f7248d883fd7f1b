package google

import (
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// FuzzClassify reads any status, Google status, reason and message as the
// adapter reads an answer: it never panics, and a limit is never
// negative.
func FuzzClassify(f *testing.F) {
	for _, r := range providertest.GeminiRefusals {
		f.Add(r.Reply.Status, "INVALID_ARGUMENT", "", r.Reply.Body)
	}
	f.Fuzz(func(t *testing.T, status int, googleStatus, code, msg string) {
		got := classify(400+(status%200+200)%200, googleStatus, code, msg)
		if got.Limit < 0 {
			t.Errorf("Got(limit) = %d; want ≥ 0", got.Limit)
		}
		if got.Kind == keel.FaultNotFile && (got.MediaType != "" || got.Class != "") {
			t.Errorf("Got(%+v): a fault no file caused names a file", got)
		}
	})
}
