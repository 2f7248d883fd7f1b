package google

import (
	"encoding/json"
	"net/http"
	"testing"

	"google.golang.org/genai"

	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/providertest"
)

// BenchmarkClassify classifies each real error answer the adapter reads:
// "classify/" finds the fault, media type and limit in the answer's
// status, Google status, reason and message; "answer/" reads the body's
// JSON and builds keel's typed error from it.
//
//	go test -run '^$' -bench Classify ./provider/google/
func BenchmarkClassify(b *testing.B) {
	header := http.Header{"Content-Type": {"application/json; charset=UTF-8"}}
	for _, r := range providertest.GeminiRefusals {
		var e struct {
			Error genai.APIError `json:"error"`
		}
		if err := json.Unmarshal([]byte(r.Reply.Body), &e); err != nil {
			b.Fatal(err)
		}
		code := e.Error.Status
		if reason := errorReason(e.Error.Details); reason != "" {
			code = reason
		}
		b.Run("classify/"+r.Name, func(b *testing.B) {
			for b.Loop() {
				if f := classify(r.Reply.Status, e.Error.Status, code, e.Error.Message); f.Kind != r.Fault {
					b.Fatalf("Got(fault) = %v; want %v", f.Kind, r.Fault)
				}
			}
		})
		b.Run("answer/"+r.Name, func(b *testing.B) {
			b.ReportAllocs()
			rec := exchange.Record{URL: "http://127.0.0.1/v1beta/models/m:generateContent", Status: r.Reply.Status, Header: header, Body: []byte(r.Reply.Body)}
			for b.Loop() {
				var e struct {
					Error genai.APIError `json:"error"`
				}
				if err := json.Unmarshal([]byte(r.Reply.Body), &e); err != nil {
					b.Fatal(err)
				}
				if got := fromAPIError(rec, e.Error, nil); got.Fault != r.Fault {
					b.Fatalf("Got(fault) = %v; want %v", got.Fault, r.Fault)
				}
			}
		})
	}
}
