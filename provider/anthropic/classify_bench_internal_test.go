package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/keel-go/keel/provider/providertest"
)

// BenchmarkClassify classifies each real error answer the adapter reads:
// "classify/" finds the fault, media type and limit in the answer's
// status, type and message; "answer/" reads the body's JSON first.
//
//	go test -run '^$' -bench Classify ./provider/anthropic/
func BenchmarkClassify(b *testing.B) {
	type body struct {
		Error struct{ Type, Message string } `json:"error"`
	}
	for _, r := range providertest.AnthropicRefusals {
		var e body
		if err := json.Unmarshal([]byte(r.Reply.Body), &e); err != nil {
			b.Fatal(err)
		}
		b.Run("classify/"+r.Name, func(b *testing.B) {
			for b.Loop() {
				if f := classify(r.Reply.Status, e.Error.Type, e.Error.Message, nil); f.Kind != r.Fault {
					b.Fatalf("Got(fault) = %v; want %v", f.Kind, r.Fault)
				}
			}
		})
		b.Run("answer/"+r.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var e body
				if err := json.Unmarshal([]byte(r.Reply.Body), &e); err != nil {
					b.Fatal(err)
				}
				if f := classify(r.Reply.Status, e.Error.Type, e.Error.Message, nil); f.Kind != r.Fault {
					b.Fatalf("Got(fault) = %v; want %v", f.Kind, r.Fault)
				}
			}
		})
	}
}
