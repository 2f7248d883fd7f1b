package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
)

// TestRun runs the example against a local server speaking the Gemini
// API, found through the environment as a real key and URL would be.
func TestRun(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{
		Text:        "A short report.",
		Unsupported: []string{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	})
	t.Setenv("GOOGLE_GENERATIVE_AI_API_KEY", "test-key")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL())
	dir := t.TempDir()
	pdf := filepath.Join(dir, "report.pdf")
	xlsx := filepath.Join(dir, "leads.xlsx")
	for _, p := range []string{pdf, xlsx} {
		if err := os.WriteFile(p, []byte("content"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		args       []string
		code       int
		out, err   string
		inlineType string
	}{
		{"pdf", []string{"What is this?", pdf}, 0, "A short report.\n[stop, 11 tokens in, 7 out]\n", "", "application/pdf"},
		{"xlsx refused by the API", []string{"What is this?", xlsx}, 1, "", "Gemini answered 400 INVALID_ARGUMENT: Unsupported MIME type", ""},
		{"no question", nil, 2, "", "usage:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(srv.Requests())
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.code || stdout.String() != tt.out || !strings.Contains(stderr.String(), tt.err) {
				t.Errorf("Got(run) = %d, %q, %q; want %d, %q, stderr containing %q", code, stdout.String(), stderr.String(), tt.code, tt.out, tt.err)
			}
			if tt.inlineType == "" {
				return
			}
			reqs := srv.Requests()
			if len(reqs) != before+1 {
				t.Fatalf("Got(requests) = %d; want 1", len(reqs)-before)
			}
			b, err := reqs[before].Decode()
			if err != nil {
				t.Fatal(err)
			}
			if got := b.InlineMediaTypes(); len(got) != 1 || got[0] != tt.inlineType {
				t.Errorf("Got(inline types) = %q; want [%s]", got, tt.inlineType)
			}
		})
	}
}
