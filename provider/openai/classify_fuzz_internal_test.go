package openai

import (
	"net/http"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// FuzzClassify reads any error body as the adapter reads an answer: it
// never panics, a file-type fault is never retryable, and a limit is
// never negative.
func FuzzClassify(f *testing.F) {
	for _, r := range providertest.OpenAICompatibleRefusals {
		f.Add(r.Reply.Status, r.Reply.Body)
	}
	f.Add(500, `<html><head><title>502 Bad Gateway</title></head></html>`)
	m := &Model{provider: "openai"}
	f.Fuzz(func(t *testing.T, status int, body string) {
		status = 400 + (status%200+200)%200
		typ, code, msg := parseErrorBody(body)
		e := m.apiError("http://127.0.0.1/v1/chat/completions", status, http.Header{"Content-Type": {"application/json"}}, body, typ, code, msg, nil)
		if e.Fault == keel.FaultFileType && e.Retryable {
			t.Errorf("a refused file type is retryable: %+v", e)
		}
		if e.Limit < 0 {
			t.Errorf("Got(limit) = %d; want ≥ 0", e.Limit)
		}
	})
}
