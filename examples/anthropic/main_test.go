package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/providertest"
)

const answer = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":11,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"A short \"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"report.\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":7}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// TestRun runs the example against a local server speaking the Messages
// API, found through the environment as a real key and URL would be.
func TestRun(t *testing.T) {
	srv := providertest.NewServer(t, providertest.Reply{Body: answer, ContentType: "text/event-stream"})
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL())
	dir := t.TempDir()
	pdf := filepath.Join(dir, "report.pdf")
	xlsx := filepath.Join(dir, "leads.xlsx")
	for _, p := range []string{pdf, xlsx} {
		if err := os.WriteFile(p, []byte("content"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
		sent     string
	}{
		{"pdf", []string{"What is this?", pdf}, 0, "A short report.\n[stop, 11 tokens in, 7 out]\n", "", `"media_type":"application/pdf"`},
		{"xlsx refused before sending", []string{"What is this?", xlsx}, 0, "A short report.\n[stop, 11 tokens in, 7 out]\n", "[unsupported-file-handler: placeholder leads.xlsx]", "[Attachment unavailable: leads.xlsx]"},
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
			if strings.Contains(stderr.String(), "WARN") {
				t.Errorf("Got(stderr) = %q; want no warning in normal use", stderr.String())
			}
			if tt.sent == "" {
				return
			}
			reqs := srv.Requests()
			if len(reqs) != before+1 {
				t.Fatalf("Got(requests) = %d; want 1", len(reqs)-before)
			}
			if body := string(reqs[before].Body); !strings.Contains(body, tt.sent) || !strings.Contains(body, `"current_time"`) {
				t.Errorf("Got(request body) = %s; want it to hold %s and the current_time tool", body, tt.sent)
			}
		})
	}
}
