package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/keel-go/keel/provider/google/googletest"
)

// keel run sends a spreadsheet to a model that refuses it (a local server
// speaking Gemini's protocol, as Gemini answers xlsx files); the run goes
// on with the file in the sandbox.
func Example_run() {
	srv := googletest.Start(googletest.Options{Unsupported: []string{xlsxType}})
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "keel-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "leads.xlsx"), xlsxBytes(), 0o644)

	cmd := exec.Command(keelBin, "run", "--json", "--new-thread", "demo", "--file", "leads.xlsx", "How many leads are from Berlin?")
	cmd.Dir, cmd.Env = dir, geminiEnv(srv)
	out, err := cmd.Output()
	if err != nil {
		fmt.Println(err)
		return
	}
	var res runJSON
	_ = json.Unmarshal(out, &res)
	fmt.Println(res.Text, res.FinishReason, res.ThreadID)
	for _, rec := range res.Recoveries {
		for _, f := range rec.Files {
			path := regexp.MustCompile(`[0-9a-f]{64}`).ReplaceAllString(f.Path, "<sha256>")
			fmt.Println(rec.Processor, rec.Action, f.Name, "to", path)
		}
	}
	// Output:
	// Hello from Gemini. stop demo
	// unsupported-file-handler uploaded leads.xlsx to /home/user/uploads/demo/<sha256>.xlsx
}

// keel threads show lists each stored file with its size and SHA-256.
func Example_threadsShow() {
	srv := googletest.Start(googletest.Options{})
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "keel-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Leads\n\n12 from Berlin.\n"), 0o644)

	run := exec.Command(keelBin, "run", "--new-thread", "notes", "--file", "notes.md", "Summarise")
	run.Dir, run.Env = dir, geminiEnv(srv)
	if out, err := run.CombinedOutput(); err != nil {
		fmt.Println(err, string(out))
		return
	}
	show := exec.Command(keelBin, "threads", "show", "notes")
	show.Dir, show.Env = dir, env()
	out, _ := show.Output()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "  file ") || strings.HasPrefix(line, "  Summarise") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// Summarise
	// file notes.md  text/markdown  25 bytes  sha256 d0266ee0986b05b97e1267e58b3359d8ca2dc26ec1a32d897608ce5c263e5ef1
}
