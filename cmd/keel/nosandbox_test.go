package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
)

// TestRunWithoutSandbox: an agent with sandbox: none, or no tool, gets
// the placeholder for a file the model refuses, and no sandbox is made;
// sandbox settings nothing reaches are warned of, at their line.
func TestRunWithoutSandbox(t *testing.T) {
	for _, tc := range []struct {
		name, agent, warning string
	}{
		{"sandbox none", "sandbox: none", ""},
		{"no tools", "tools: []", ""},
		{"settings nothing reaches", "tools: []\n    sandbox: {resolution: per-thread}", "WARNING: config: keel.yaml:4: agents[0].sandbox: agent writer has no tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("agents:\n  - id: writer\n    "+tc.agent+"\n"))
			writeFile(t, filepath.Join(dir, "leads.xlsx"), xlsxBytes())
			res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--file", "leads.xlsx", "Summarise")
			out := decode[runJSON](t, "run output", res.stdout)
			if len(out.Recoveries) != 1 || out.Recoveries[0].Action != "placeholder" {
				t.Errorf("Got(recoveries) = %+v; want the placeholder", out.Recoveries)
			}
			reqs := srv.Requests()
			second, _ := reqs[len(reqs)-1].Decode()
			if text := strings.Join(second.UserTexts(), "\n"); !strings.Contains(text, "[Attachment unavailable: leads.xlsx]") || strings.Contains(text, "sandbox") {
				t.Errorf("Got(second call's text) = %q; want the placeholder and no word of a sandbox", text)
			}
			if _, err := os.Stat(filepath.Join(dir, ".keel")); !os.IsNotExist(err) {
				t.Errorf("Got(stat .keel) error %v; want no sandbox made", err)
			}
			if tc.warning == "" && strings.Contains(res.stderr, "WARNING") || !strings.Contains(res.stderr, tc.warning) ||
				strings.Contains(res.stderr, "sandbox commands") {
				t.Errorf("Got(stderr) = %q; want %q, and nothing about sandbox commands", res.stderr, tc.warning)
			}
		})
	}
}

// TestRunFileUploadFromYAML: keel.yaml's fileUpload puts the files it
// chooses into the sandbox before the model sees them.
func TestRunFileUploadFromYAML(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("agents:\n  - id: analyst\n    tools: [read_file]\n    fileUpload: {extensions: [csv]}\n"))
	writeFile(t, filepath.Join(dir, "data.csv"), []byte("region,leads\nBerlin,12\n"))
	writeFile(t, filepath.Join(dir, "notes.md"), []byte("# Notes\n"))
	res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--new-thread", "up", "--file", "data.csv", "--file", "notes.md", "Which region?")
	out := decode[runJSON](t, "run output", res.stdout)
	if len(out.Recoveries) != 1 || out.Recoveries[0].Processor != "file-upload" || len(out.Recoveries[0].Files) != 1 ||
		!strings.HasPrefix(out.Recoveries[0].Files[0].Path, "/home/user/uploads/up/") {
		t.Fatalf("Got(recoveries) = %+v; want data.csv uploaded by file-upload", out.Recoveries)
	}
	first, _ := srv.Requests()[0].Decode()
	if mts := first.InlineMediaTypes(); len(mts) != 1 || mts[0] != "text/markdown" {
		t.Errorf("Got(files sent) = %q; want notes.md only", mts)
	}
	if text := strings.Join(first.UserTexts(), "\n"); !strings.Contains(text, "[File uploaded to the sandbox]") || !strings.Contains(text, "name: data.csv") {
		t.Errorf("Got(first call's text) = %q; want the upload note of data.csv", text)
	}
	text := mustKeel(t, dir, geminiEnv(srv), "run", "--new-thread", "up2", "--file", "data.csv", "Which region?")
	if !strings.Contains(text.stderr, "keel run: data.csv converted to text (") ||
		!strings.Contains(text.stderr, ") and uploaded to the sandbox at /home/user/uploads/up2/") || !strings.Contains(text.stderr, "(file-upload; by its own rule)") {
		t.Errorf("Got(stderr) = %q; want the upload told", text.stderr)
	}
}
