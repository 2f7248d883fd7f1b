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
// be. A PDF goes to the model as it is; a spreadsheet, which the adapter
// refuses before sending, reaches the model as its text and a note of
// where it is in the sandbox, in the one call made; the Responses API
// takes the spreadsheet as it is. The model is offered the sandbox tools
// and the example's own current_time.
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
	book := officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}})
	for p, data := range map[string][]byte{pdf: []byte("content"), xlsx: book} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sandbox := filepath.Join(sandboxtest.ReachableTempDir(t), "sandbox")
	const done = "A short report.\n[stop, 11 tokens in, 7 out]\n"
	tests := []struct {
		name     string
		reply    *providertest.Reply
		args     []string
		code     int
		out, err string
		sent     []string
	}{
		{"pdf", nil, []string{"What is this?", pdf}, 0, done, "", []string{`"file_data":"data:application/pdf;base64,Y29udGVudA=="`}},
		{"xlsx refused before sending, converted", nil, []string{"-sandbox", sandbox, "What is this?", xlsx}, 0, done,
			"[unsupported-file-handler: converted leads.xlsx to /home/user/uploads/example/", []string{"[File uploaded to the sandbox]", "Ada,Berlin"}},
		{"responses pass the xlsx through", &providertest.Reply{Body: responsesAnswer, ContentType: "text/event-stream"},
			[]string{"-api", "responses", "What is this?", xlsx}, 0, done, "", []string{`"filename":"leads.xlsx"`}},
		{"no question", nil, nil, 2, "", "usage:", nil},
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
			if tt.sent == nil {
				return
			}
			reqs := srv.Requests()
			if len(reqs) != before+1 {
				t.Fatalf("Got(requests) = %d; want 1", len(reqs)-before)
			}
			body := string(reqs[len(reqs)-1].Body)
			for _, want := range append(tt.sent, `"current_time"`, `"read_file"`, `"list_files"`, `"run_command"`) {
				if !strings.Contains(body, want) {
					t.Errorf("Got(request body) = %.600s; want it to contain %s", body, want)
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

func TestRunWithoutKeyNamesTheVariable(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"hi"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "OPENAI_API_KEY") {
		t.Errorf("Got(run) = %d, %q; want 1 and a message naming OPENAI_API_KEY", code, stderr.String())
	}
}
