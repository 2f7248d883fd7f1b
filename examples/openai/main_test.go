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

const answer = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"A short "},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"report."},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}

data: [DONE]

`

const responsesAnswer = `event: response.output_text.delta
data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"A short report."}

event: response.completed
data: {"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5","output":[],"usage":{"input_tokens":11,"output_tokens":7,"total_tokens":18}}}

`

// TestRun runs the example against a local server speaking Chat
// Completions, found through the environment as a real key and URL would
// be.
func TestRun(t *testing.T) {
	chat := providertest.Reply{Body: answer, ContentType: "text/event-stream"}
	srv := providertest.NewServer(t, chat)
	for _, v := range []string{"OPENAI_ORG_ID", "OPENAI_PROJECT_ID"} {
		t.Setenv(v, "")
	}
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", srv.URL()+"/v1")
	dir := t.TempDir()
	pdf := filepath.Join(dir, "report.pdf")
	xlsx := filepath.Join(dir, "leads.xlsx")
	for _, p := range []string{pdf, xlsx} {
		if err := os.WriteFile(p, []byte("content"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const done = "A short report.\n[stop, 11 tokens in, 7 out]\n"
	tests := []struct {
		name     string
		reply    *providertest.Reply
		args     []string
		code     int
		out, err string
		sent     string
	}{
		{"pdf", nil, []string{"What is this?", pdf}, 0, done, "", `"file_data":"data:application/pdf;base64,Y29udGVudA=="`},
		{"xlsx refused before sending", nil, []string{"What is this?", xlsx}, 0, done, "[unsupported-file-handler: placeholder leads.xlsx]", "[Attachment unavailable: leads.xlsx]"},
		{"responses pass the xlsx through", &providertest.Reply{Body: responsesAnswer, ContentType: "text/event-stream"},
			[]string{"-api", "responses", "What is this?", xlsx}, 0, done, "", `"filename":"leads.xlsx"`},
		{"no question", nil, nil, 2, "", "usage:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reply != nil {
				srv.SetReplies(*tt.reply)
				defer srv.SetReplies(chat)
			}
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
			if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, tt.sent) {
				t.Errorf("Got(request body) = %.300s; want it to contain %s", body, tt.sent)
			}
		})
	}
}

func TestRunWithoutKeyNamesTheVariable(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"hi"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "OPENAI_API_KEY") {
		t.Errorf("Got(run) = %d, %q; want 1 and a message naming OPENAI_API_KEY", code, stderr.String())
	}
}
