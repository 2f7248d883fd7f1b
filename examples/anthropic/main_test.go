package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

const answer = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":11,\"output_tokens\":1}}}\n\n" +
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"A short \"}}\n\n" +
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"report.\"}}\n\n" +
	"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":7}}\n\n" +
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

// TestRun runs the example against a local server speaking the Messages
// API, found through the environment as a real key and URL would be. A
// PDF goes to Claude as it is; a spreadsheet, which the adapter refuses
// before sending, reaches the model as its text and a note of where it is
// in the sandbox, in the one call made. The model is offered the sandbox
// tools and the example's own current_time.
func TestRun(t *testing.T) {
	srv := providertest.NewServer(t, providertest.Reply{Body: answer, ContentType: "text/event-stream"})
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL())
	dir := t.TempDir()
	pdf := filepath.Join(dir, "report.pdf")
	xlsx := filepath.Join(dir, "leads.xlsx")
	book := officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}})
	for p, data := range map[string][]byte{pdf: []byte("%PDF-1.4 content"), xlsx: book} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sandbox := filepath.Join(sandboxtest.ReachableTempDir(t), "sandbox")
	const done = "A short report.\n[stop, 11 tokens in, 7 out]\n"
	tests := []struct {
		name     string
		args     []string
		code     int
		out, err string
		sent     []string
	}{
		{"pdf", []string{"What is this?", pdf}, 0, done, "", []string{`"media_type":"application/pdf"`}},
		{"xlsx refused before sending, converted", []string{"-sandbox", sandbox, "What is this?", xlsx}, 0, done,
			"[unsupported-file-handler: converted leads.xlsx to /home/user/uploads/example/", []string{"[File uploaded to the sandbox]", "Ada,Berlin"}},
		{"no question", nil, 2, "", "usage:", nil},
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
			if tt.sent == nil {
				return
			}
			reqs := srv.Requests()
			if len(reqs) != before+1 {
				t.Fatalf("Got(requests) = %d; want 1", len(reqs)-before)
			}
			body := string(reqs[before].Body)
			for _, want := range append(tt.sent, `"current_time"`, `"read_file"`, `"list_files"`, `"run_command"`) {
				if !strings.Contains(body, want) {
					t.Errorf("Got(request body) = %.600s; want it to hold %s", body, want)
				}
			}
		})
	}
	// The refused spreadsheet is in the sandbox given, under the run's
	// resource, "example", where the model's tools find it.
	uploaded, _ := filepath.Glob(filepath.Join(sandbox, "resource-"+localsandbox.DirName("example"), "uploads", "example", "*.xlsx"))
	if len(uploaded) != 1 {
		t.Fatalf("Got(uploads in the sandbox) = %q; want leads.xlsx", uploaded)
	}
	if data, _ := os.ReadFile(uploaded[0]); !bytes.Equal(data, book) {
		t.Errorf("Got(the uploaded file) = %d bytes; want the %d sent", len(data), len(book))
	}
}
