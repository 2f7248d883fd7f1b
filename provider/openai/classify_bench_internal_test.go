package openai

import (
	"cmp"
	"net/http"
	"testing"

	"github.com/keel-go/keel/provider/providertest"
)

// BenchmarkClassify classifies each real error answer the adapter reads
// (of OpenAI and of the compatible servers): "classify/" finds the
// fault, media type and limit in the answer's status, code and message;
// "answer/" is the whole of what a failed call adds before the
// unsupported-file handler sees it, the body's JSON read and keel's
// typed error built.
//
//	go test -run '^$' -bench Classify ./provider/openai/ ./provider/anthropic/ ./provider/google/
func BenchmarkClassify(b *testing.B) {
	m := &Model{provider: "openai"}
	header := http.Header{"Content-Type": {"application/json"}}
	for _, r := range providertest.OpenAICompatibleRefusals {
		typ, code, msg := parseErrorBody(r.Reply.Body)
		b.Run("classify/"+r.Name, func(b *testing.B) {
			for b.Loop() {
				if f := classify(r.Reply.Status, cmp.Or(code, typ), msg); f.Kind != r.Fault {
					b.Fatalf("Got(fault) = %v; want %v", f.Kind, r.Fault)
				}
			}
		})
		b.Run("answer/"+r.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				typ, code, msg := parseErrorBody(r.Reply.Body)
				if e := m.apiError("http://127.0.0.1/v1/chat/completions", r.Reply.Status, header, r.Reply.Body, typ, code, msg, nil); e.Fault != r.Fault {
					b.Fatalf("Got(fault) = %v; want %v", e.Fault, r.Fault)
				}
			}
		})
	}
}
