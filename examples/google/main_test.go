package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// TestRun runs the example against a local server speaking the Gemini
// API, found through the environment as a real key and URL would be: it
// refuses spreadsheets with its 400, and fails on Word documents with its
// 502; the agent answers all the same.
func TestRun(t *testing.T) {
	const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	srv := googletest.NewServer(t, googletest.Options{
		Text:        "A short report.",
		Unsupported: []string{xlsxType},
		Internal:    []string{"application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	})
	t.Setenv("GOOGLE_GENERATIVE_AI_API_KEY", "test-key")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL())
	dir := t.TempDir()
	paths := map[string]string{}
	files := map[string][]byte{
		"report.pdf":  []byte("%PDF-1.4 content of report.pdf"),
		"leads.xlsx":  officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}}),
		"letter.docx": officetest.Document(t, "Letter", []string{"Prices rise in May."}, nil),
	}
	for name, data := range files {
		paths[name] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[name], data, 0o600); err != nil {
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
		calls    int
	}{
		{"pdf", []string{"What is this?", paths["report.pdf"]}, 0, done, "", 1},
		{"xlsx refused with a 400, uploaded", []string{"-sandbox", sandbox, "What is this?", paths["leads.xlsx"]}, 0, done,
			"[unsupported-file-handler: converted leads.xlsx to /home/user/uploads/example/", 2},
		{"docx failing with a 502, uploaded", []string{"What is this?", paths["letter.docx"]}, 0, done,
			"[unsupported-file-handler: converted letter.docx to /home/user/uploads/example/", 2},
		{"no question", nil, 2, "", "usage:", 0},
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
			if got := len(srv.Requests()) - before; got != tt.calls {
				t.Errorf("Got(model calls) = %d; want %d", got, tt.calls)
			}
		})
	}
	// The refused spreadsheet is in the sandbox given, where the model's
	// tools find it.
	// The run's resource, "example", has its own sandbox.
	uploaded, _ := filepath.Glob(filepath.Join(sandbox, "resource-"+localsandbox.DirName("example"), "uploads", "example", "*.xlsx"))
	if len(uploaded) != 1 || !regexp.MustCompile(`/[0-9a-f]{64}\.xlsx$`).MatchString(uploaded[0]) {
		t.Fatalf("Got(uploads in the sandbox) = %q; want leads.xlsx under its digest", uploaded)
	}
	if data, _ := os.ReadFile(uploaded[0]); !bytes.Equal(data, files["leads.xlsx"]) {
		t.Errorf("Got(the uploaded file) = %q; want the bytes sent", data)
	}
}
