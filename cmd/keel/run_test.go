package main_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// runJSON is keel run --json's output.
type runJSON struct {
	Text         string `json:"text"`
	FinishReason string `json:"finishReason"`
	Usage        struct {
		InputTokens, OutputTokens, TotalTokens int
	} `json:"usage"`
	ThreadID   string `json:"threadId"`
	ResourceID string `json:"resourceId"`
	Recoveries []struct {
		Processor string `json:"processor"`
		Action    string `json:"action"`
		Files     []struct {
			Name, MediaType, Path string
			Outcome, Reason       string
			Size                  int64
		} `json:"files"`
	} `json:"recoveries"`
}

// showOut is keel threads show --json's output.
type showOut struct {
	Thread struct {
		ID, ResourceID string
	} `json:"thread"`
	Messages []struct {
		ID, Role, Text string
		Files          []struct {
			Name      string `json:"name"`
			MediaType string `json:"mediaType"`
			Size      int64  `json:"size"`
			SHA256    string `json:"sha256"`
		} `json:"files"`
		Recoveries []struct {
			Action string `json:"action"`
			Files  []struct {
				Name, Outcome, Path, SHA256 string
			} `json:"files"`
			Cause *struct {
				Kind, Provider, Message string
				Status                  int
			} `json:"cause"`
		} `json:"recoveries"`
	} `json:"messages"`
}

func decode[T any](t *testing.T, what, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("Got(decode %s %q) = %v; want JSON", what, s, err)
	}
	return v
}

func TestRunRecoversRefusedFile(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})
	dir := t.TempDir()
	data := xlsxBytes()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), data)
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	sb := filepath.Join(dir, "sb")

	res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--file", "leads.xlsx", "--new-thread", "t1",
		"--sandbox", sb, "--db", filepath.Join(dir, "data", "k.db"), "How many leads are from Berlin?")
	out := decode[runJSON](t, "run output", res.stdout)
	if out.Text != googletest.DefaultText || out.FinishReason != "stop" || out.ThreadID != "t1" || out.ResourceID != "default" {
		t.Errorf("Got(run output) = %+v; want the model's text, stop, thread t1 of resource default", out)
	}
	if out.Usage.TotalTokens != googletest.InputTokens+googletest.OutputTokens {
		t.Errorf("Got(usage) = %+v; want the model server's tokens", out.Usage)
	}
	wantPath := "/home/user/uploads/t1/" + digest + ".xlsx"
	if len(out.Recoveries) != 1 || out.Recoveries[0].Action != "uploaded" || len(out.Recoveries[0].Files) != 1 ||
		out.Recoveries[0].Files[0].Path != wantPath || out.Recoveries[0].Files[0].Name != "leads.xlsx" {
		t.Fatalf("Got(recoveries) = %+v; want leads.xlsx uploaded to %s", out.Recoveries, wantPath)
	}

	onDisk := filepath.Join(sb, "resource-"+localsandbox.DirName("default"), "uploads", "t1", digest+".xlsx")
	got, err := os.ReadFile(onDisk)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("Got(sandbox file %s) = %d bytes, %v; want the %d bytes sent", onDisk, len(got), err, len(data))
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("Got(model calls) = %d; want 2 (refused, then without the file)", len(reqs))
	}
	first, _ := reqs[0].Decode()
	second, _ := reqs[1].Decode()
	if mts := first.InlineMediaTypes(); len(mts) != 1 || mts[0] != xlsxType {
		t.Errorf("Got(first call's files) = %q; want the xlsx", mts)
	}
	if mts := second.InlineMediaTypes(); len(mts) != 0 {
		t.Errorf("Got(second call's files) = %q; want none", mts)
	}
	if texts := strings.Join(second.UserTexts(), "\n"); !strings.Contains(texts, "[File uploaded to the sandbox]") || !strings.Contains(texts, wantPath) {
		t.Errorf("Got(second call's text) = %q; want the upload note with %s", texts, wantPath)
	}

	// The thread keeps the file as sent: name, type, size and digest.
	show := mustKeel(t, dir, env(), "threads", "show", "t1", "--json", "--db", filepath.Join(dir, "data", "k.db"))
	th := decode[showOut](t, "threads show", show.stdout)
	if th.Thread.ID != "t1" || len(th.Messages) != 2 || th.Messages[0].Role != "user" || th.Messages[1].Role != "assistant" {
		t.Fatalf("Got(thread) = %+v; want t1 with the user's message and the answer", th)
	}
	files := th.Messages[0].Files
	if len(files) != 1 || files[0].Name != "leads.xlsx" || files[0].MediaType != xlsxType || files[0].Size != int64(len(data)) || files[0].SHA256 != digest {
		t.Errorf("Got(stored files) = %+v; want leads.xlsx %s %d bytes sha256 %s", files, xlsxType, len(data), digest)
	}
	if th.Messages[0].Text != "How many leads are from Berlin?" || th.Messages[1].Text != googletest.DefaultText {
		t.Errorf("Got(texts) = %q, %q; want the prompt and the answer", th.Messages[0].Text, th.Messages[1].Text)
	}
	// What keel did is stored with the turn, on the reply, cause included.
	if recs := th.Messages[1].Recoveries; len(recs) != 1 || recs[0].Action != "uploaded" || len(recs[0].Files) != 1 ||
		recs[0].Files[0].Path != wantPath || recs[0].Files[0].SHA256 != digest || recs[0].Cause == nil ||
		recs[0].Cause.Kind != "api-error" || recs[0].Cause.Status != 400 || !strings.Contains(recs[0].Cause.Message, "Unsupported MIME type") {
		t.Errorf("Got(stored recoveries) = %+v; want leads.xlsx uploaded to %s after google's 400", recs, wantPath)
	}
	if len(th.Messages[0].Recoveries) != 0 {
		t.Errorf("Got(recoveries on the input) = %+v; want them on the reply only", th.Messages[0].Recoveries)
	}
	text := mustKeel(t, dir, env(), "threads", "show", "t1", "--db", filepath.Join(dir, "data", "k.db"))
	if !strings.Contains(text.stdout, "leads.xlsx") || !strings.Contains(text.stdout, digest) || !strings.Contains(text.stdout, fmt.Sprintf("%d bytes", len(data))) {
		t.Errorf("Got(threads show) = %q; want leads.xlsx with its size and sha256 %s", text.stdout, digest)
	}
	if want := "keel: leads.xlsx uploaded to the sandbox at " + wantPath + " (unsupported-file-handler; google answered 400 INVALID_ARGUMENT: Unsupported MIME type"; !strings.Contains(text.stdout, want) {
		t.Errorf("Got(threads show) = %q; want the line %q", text.stdout, want)
	}
}

func TestRunStreamAndDefaults(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Text: "Streamed words arrive.", Unsupported: []string{xlsxType}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), xlsxBytes())
	// No --db, --sandbox or --thread: keel.db and .keel/sandbox in the
	// working directory, and a new thread.
	res := mustKeel(t, dir, geminiEnv(srv), "run", "--stream", "--file", "leads.xlsx", "Summarise")
	if strings.TrimSpace(res.stdout) != "Streamed words arrive." {
		t.Errorf("Got(streamed stdout) = %q; want the model's text", res.stdout)
	}
	if !strings.Contains(res.stderr, "leads.xlsx") || !strings.Contains(res.stderr, "uploaded to the sandbox at /home/user/uploads/") {
		t.Errorf("Got(stderr) = %q; want the upload of leads.xlsx told", res.stderr)
	}
	for _, p := range []string{"keel.db", ".keel/sandbox"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("Got(stat %s) = %v; want it made on first use", p, err)
		}
	}
	list := mustKeel(t, dir, env(), "threads", "list", "--json")
	threads := decode[[]struct{ ID, ResourceID, Title string }](t, "threads list", list.stdout)
	if len(threads) != 1 || threads[0].ResourceID != "default" || !strings.Contains(res.stderr, "thread "+threads[0].ID) {
		t.Fatalf("Got(threads) = %+v; want the one thread stderr named", threads)
	}
	// The run titled its new thread by the prompt.
	if threads[0].Title != "Summarise" {
		t.Errorf("Got(title) = %q; want Summarise, the first user text", threads[0].Title)
	}
	table := mustKeel(t, dir, env(), "threads", "list")
	if !strings.Contains(table.stdout, threads[0].ID) || !strings.Contains(table.stdout, "Summarise") {
		t.Errorf("Got(threads list) = %q; want %s listed with its title", table.stdout, threads[0].ID)
	}
	other := mustKeel(t, dir, env(), "threads", "list", "--resource", "someone-else")
	if strings.Contains(other.stdout, threads[0].ID) {
		t.Errorf("Got(another resource's threads) = %q; want none of default's", other.stdout)
	}
}

func TestRunMediaTypes(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	files := []struct{ name, want string }{
		{"report.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"deck.PPTX", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
		{"data.csv", "text/csv"},
		{"notes.md", "text/markdown"},
		{"conf.json", "application/json"},
		{"bundle.zip", "application/zip"},
		{"picture", "image/png"},
		{"archive", "application/zip"},
		{"plain", "text/plain"},
	}
	// The prompt comes first: flags may follow it.
	args := []string{"run", "What are these?", "--json", "--new-thread", "media", "--sandbox", filepath.Join(dir, "sb")}
	for _, f := range files {
		data := []byte("a,b\n1,2\n")
		switch f.name {
		case "picture":
			data = png
		case "archive":
			data = xlsxBytes()
		}
		writeFile(t, filepath.Join(dir, f.name), data)
		args = append(args, "--file", f.name)
	}
	// Storage named by the environment instead of --db.
	dbEnv := "KEEL_DATABASE_URL=" + filepath.Join(dir, "from-env.db")
	mustKeel(t, dir, geminiEnv(srv, dbEnv), args...)
	if _, err := os.Stat(filepath.Join(dir, "keel.db")); err == nil {
		t.Errorf("Got(keel.db made) = true; want the store of KEEL_DATABASE_URL only")
	}
	th := decode[showOut](t, "threads show", mustKeel(t, dir, env(dbEnv), "threads", "show", "media", "--json").stdout)
	got := th.Messages[0].Files
	if len(got) != len(files) {
		t.Fatalf("Got(stored files) = %d; want %d", len(got), len(files))
	}
	for i, f := range files {
		if got[i].Name != f.name || got[i].MediaType != f.want {
			t.Errorf("Got(media type of %q) = %q (%q); want %q", f.name, got[i].MediaType, got[i].Name, f.want)
		}
	}
}

func TestRunPromptFromStdin(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	cmd := exec.Command(keelBin, "run", "--agent", "assistant", "--new-thread", "piped", "-")
	cmd.Dir, cmd.Env = dir, geminiEnv(srv)
	cmd.Stdin = strings.NewReader("A prompt\nover two lines\n")
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != googletest.DefaultText {
		t.Fatalf("Got(keel run - with a piped prompt) = %q, %v; want the model's text", out, err)
	}
	body, err := srv.Requests()[0].Decode()
	if err != nil {
		t.Fatal(err)
	}
	if texts := body.UserTexts(); len(texts) != 1 || texts[0] != "A prompt\nover two lines" {
		t.Errorf("Got(prompt sent) = %q; want the piped text, trimmed", texts)
	}
}

func TestRunModelFlag(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	mustKeel(t, dir, geminiEnv(srv), "run", "--model", "google/gemini-2.0-flash-lite", "Hi")
	if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Model != "gemini-2.0-flash-lite" {
		t.Fatalf("Got(model called) = %+v; want gemini-2.0-flash-lite, as --model says", reqs)
	}
}
