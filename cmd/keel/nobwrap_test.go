package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

// withoutBwrap is an environment whose PATH has no bwrap: a machine with
// only Go on it, as far as keel can tell.
func withoutBwrap(t *testing.T, environ []string) []string {
	return append(environ, "PATH="+t.TempDir())
}

// TestRunWithoutBubblewrap: on a machine without bubblewrap keel run
// answers, keeps files, says once that sandbox commands are off and how to
// install bubblewrap, and answers the model's run_command with that same
// error; nothing runs unisolated.
func TestRunWithoutBubblewrap(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}, Respond: func(r googletest.Request, n int) (providertest.Reply, bool) {
		b, _ := r.Decode()
		for _, c := range b.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil {
					return providertest.Reply{}, false
				}
			}
		}
		if len(b.InlineMediaTypes()) > 0 {
			return providertest.Reply{}, false // refused, as Gemini refuses xlsx
		}
		return providertest.Reply{Body: googletest.ToolCallBody("c1", "run_command", `{"command":"wc -c uploads/*/*"}`)}, true
	}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), xlsxBytes())
	res := mustKeel(t, dir, withoutBwrap(t, geminiEnv(srv)), "run", "--json", "--file", "leads.xlsx", "How many leads?")
	if n := strings.Count(res.stderr, "sandbox commands are off"); n != 1 || !strings.Contains(res.stderr, "apt-get install bubblewrap") ||
		strings.Contains(res.stderr, "AllowUnisolated") {
		t.Errorf("Got(stderr) = %q; want one line saying commands are off and how to install bubblewrap", res.stderr)
	}
	out := decode[runJSON](t, "run output", res.stdout)
	if out.Text != googletest.DefaultText || len(out.Recoveries) != 1 || out.Recoveries[0].Action != "uploaded" {
		t.Errorf("Got(run output) = %+v; want the answer, the refused file uploaded", out)
	}
	// The model's run_command got the error, in the tool's result.
	var result string
	for _, r := range srv.Requests() {
		b, _ := r.Decode()
		for _, c := range b.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil {
					result = string(p.FunctionResponse.Response)
				}
			}
		}
	}
	var parsed any
	if err := json.Unmarshal([]byte(result), &parsed); err != nil || !strings.Contains(result, "sandbox commands are off") ||
		!strings.Contains(result, "apt-get install bubblewrap") {
		t.Errorf("Got(run_command's result for the model) = %s; want the error saying commands are off and how to install bubblewrap", result)
	}
}
