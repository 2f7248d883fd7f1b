package processor_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

func csvOnly(info processor.FileInfo) (bool, error) { return info.Extension == "csv", nil }

func userFiles(text string, files ...keel.FilePart) keel.Message {
	m := keel.UserText(text)
	for _, f := range files {
		m.Parts = append(m.Parts, f)
	}
	return m
}

// uploadRun is a run with a history and a turn, as the agent makes it.
type uploadRun struct {
	run     *processor.Run
	history []keel.Message
	input   []keel.Message
}

func newUploadRun(ws *workspace.Workspace, history, input []keel.Message) *uploadRun {
	run := processor.NewRun("run-1", nil)
	run.AgentID, run.ThreadID, run.ResourceID = "agent", "thread-1", "user-1"
	run.Workspace, run.Logger = ws, slog.New(slog.DiscardHandler)
	run.Messages = append(append([]keel.Message(nil), history...), input...)
	return &uploadRun{run: run, history: history, input: input}
}

func (u *uploadRun) processInput(p *processor.FileUpload) error {
	return p.ProcessInput(context.Background(), &processor.Input{Run: u.run, Messages: u.input})
}

// rewrite returns the prompt of one call after the processor.
func (u *uploadRun) rewrite(t *testing.T, p *processor.FileUpload) ([]keel.Message, error) {
	t.Helper()
	req := &processor.LLMRequest{Run: u.run, Prompt: keel.CloneMessages(u.run.Messages)}
	err := p.RewriteLLMRequest(context.Background(), req)
	return req.Prompt, err
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	var fe *processor.FileUploadError
	if !errors.As(err, &fe) || fe.Code != code {
		t.Errorf("Got(%s) error %v; want a *FileUploadError with code %s", what, err, code)
	}
}

// TestNewFileUpload checks that only a missing workspace is refused at
// construction: a workspace's sandbox, or its lack, is a matter for the
// turns that bring a file.
func TestNewFileUpload(t *testing.T) {
	if _, err := processor.NewFileUpload(processor.FileUploadOptions{}); err == nil {
		t.Error("Got(NewFileUpload(nil workspace)) no error; want NO_SANDBOX")
	} else {
		wantCode(t, "NewFileUpload(nil workspace)", err, processor.CodeNoSandbox)
	}
	mem := keeltest.NewSandbox("mem")
	noSandboxForEmptyScope := workspace.NewResolved(workspace.ResolverFunc(
		func(_ context.Context, s workspace.Scope) (workspace.Sandbox, error) {
			if s.ResourceID == "" {
				return nil, nil
			}
			return mem, nil
		}))
	refusingEmptyScope := workspace.NewResolved(workspace.ResolverFunc(
		func(_ context.Context, s workspace.Scope) (workspace.Sandbox, error) {
			if s.ResourceID == "" {
				return nil, fmt.Errorf("needs a resource: %w", workspace.ErrNoSandbox)
			}
			return mem, nil
		}))
	file := keel.FilePart{Data: []byte("a,b\n"), MediaType: "text/csv", Filename: "a.csv"}
	for _, tc := range []struct {
		name string
		ws   *workspace.Workspace
		code string // of a turn that brings a file; "" for none
	}{
		{"resolver with no sandbox for any scope", noSandboxAnywhere, processor.CodeNoSandbox},
		{"sandbox that cannot take files", workspace.New(sandboxtest.CommandOnly(mem)), processor.CodeNoWriteCapability},
		{"file sandbox", workspace.New(mem), ""},
		{"command-only sandbox", workspace.New(sandboxtest.CommandOnly(cmdSandbox{mem})), ""},
		{"resolver with no sandbox for the empty scope", noSandboxForEmptyScope, ""},
		{"resolver refusing the empty scope", refusingEmptyScope, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: tc.ws})
			if err != nil || p == nil || p.ID() != "file-upload" {
				t.Fatalf("Got(NewFileUpload) = %v, %v; want a file-upload processor", p, err)
			}
			text := newUploadRun(tc.ws, nil, []keel.Message{keel.UserText("hello")})
			if err := text.processInput(p); err != nil {
				t.Errorf("Got(ProcessInput of text only) error %v; want none: no file, no sandbox needed", err)
			}
			withFile := newUploadRun(tc.ws, nil, []keel.Message{userFiles("see", file)})
			err = withFile.processInput(p)
			if tc.code == "" {
				if err != nil {
					t.Errorf("Got(ProcessInput with a file) error %v; want none", err)
				}
				return
			}
			wantCode(t, "ProcessInput with a file", err, tc.code)
		})
	}
}

// cmdSandbox pretends to run commands, so that CommandOnly keeps a
// CommandRunner; its commands are never run in these tests.
type cmdSandbox struct{ *keeltest.Sandbox }

func (cmdSandbox) RunCommand(context.Context, workspace.Command) (*workspace.CommandResult, error) {
	return nil, errors.New("not run in this test")
}

func TestFileUploadFilterPicksCSV(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	ws := workspace.New(mem)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, Filter: csvOnly})
	if err != nil {
		t.Fatal(err)
	}
	csv := keel.FilePart{Data: []byte("name,email\nada,ada@example.com\n"), MediaType: "text/csv; charset=utf-8", Filename: "leads.csv"}
	xlsx := keel.FilePart{Data: []byte("PK\x03\x04 not csv"), MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Filename: "leads.xlsx"}
	png := keel.FilePart{Data: []byte("\x89PNG"), MediaType: "image/png", Filename: "chart.png"}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("see these", csv, xlsx, png)})
	var recs []processor.Recovery
	u.run = processor.NewRun("run-1", func(r processor.Recovery) { recs = append(recs, r) })
	u.run.ThreadID, u.run.Workspace, u.run.Messages = "thread-1", ws, u.input

	if err := u.processInput(p); err != nil {
		t.Fatalf("Got(ProcessInput) error %v; want none", err)
	}
	if n := len(mem.Writes()); n != 0 {
		t.Fatalf("Got(%d writes on input); want none before the model call", n)
	}
	for call := range 2 {
		prompt, err := u.rewrite(t, p)
		if err != nil {
			t.Fatalf("Got(RewriteLLMRequest #%d) error %v; want none", call, err)
		}
		parts := prompt[0].Parts
		note, ok := parts[1].(keel.TextPart)
		if !ok || !strings.HasPrefix(note.Text, "[File uploaded to the sandbox]\npath: /home/user/uploads/thread-1/") ||
			!strings.Contains(note.Text, "\nname: leads.csv\ntype: text/csv\nsize: 31 bytes") {
			t.Errorf("Got(prompt part 1, call %d) = %#v; want the upload note of leads.csv", call, parts[1])
		}
		if parts[2].(keel.FilePart).Filename != "leads.xlsx" || parts[3].(keel.FilePart).Filename != "chart.png" {
			t.Errorf("Got(prompt parts 2, 3) = %#v, %#v; want the files the filter left", parts[2], parts[3])
		}
	}
	// Uploaded once, reported once; stored messages keep their file.
	files := mem.Files()
	if len(files) != 1 || len(mem.Writes()) != 1 {
		t.Errorf("Got(%d files, %d writes in the sandbox); want 1, 1", len(files), len(mem.Writes()))
	}
	for path, data := range files {
		if !strings.HasSuffix(path, ".csv") || string(data) != string(csv.Data) {
			t.Errorf("Got(sandbox file %s = %q); want the CSV", path, data)
		}
	}
	if len(recs) != 1 || recs[0].Action != "uploaded" || recs[0].Processor != "file-upload" ||
		len(recs[0].Files) != 1 || recs[0].Files[0].Name != "leads.csv" || !strings.HasPrefix(recs[0].Files[0].Path, "/home/user/uploads/") {
		t.Errorf("Got(recoveries) = %+v; want one \"uploaded\" of leads.csv with its path", recs)
	}
	if _, ok := u.input[0].Parts[1].(keel.FilePart); !ok {
		t.Errorf("Got(stored part) = %#v; want the file kept", u.input[0].Parts[1])
	}
}

func TestFileUploadInputErrors(t *testing.T) {
	ok := keel.FilePart{Data: []byte("a,b\n"), MediaType: "text/csv", Filename: "ok.csv"}
	for _, tc := range []struct {
		name string
		opts processor.FileUploadOptions
		file keel.FilePart
		code string
	}{
		{"over the limit", processor.FileUploadOptions{MaxSize: func(processor.FileInfo) int64 { return 10 }},
			keel.FilePart{Data: []byte("0123456789A"), MediaType: "text/csv", Filename: "big.csv"}, processor.CodeFileTooLarge},
		{"over the default limit", processor.FileUploadOptions{},
			keel.FilePart{Data: make([]byte, workspace.MaxUploadSize+1), MediaType: "application/zip"}, processor.CodeFileTooLarge},
		{"filter error", processor.FileUploadOptions{Filter: func(processor.FileInfo) (bool, error) { return false, errors.New("no rules") }},
			ok, processor.CodeInvalidFilter},
		{"zero limit", processor.FileUploadOptions{MaxSize: func(processor.FileInfo) int64 { return 0 }}, ok, processor.CodeInvalidMaxFileSize},
		{"limit over the writer's", processor.FileUploadOptions{MaxSize: func(processor.FileInfo) int64 { return workspace.MaxUploadSize + 1 }},
			ok, processor.CodeInvalidMaxFileSize},
		{"undecodable data URL", processor.FileUploadOptions{},
			keel.FilePart{URL: "data:text/csv;base64,!!!not-base64", MediaType: "text/csv", Filename: "bad.csv"}, processor.CodeInvalidFileData},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := keeltest.NewSandbox("mem")
			tc.opts.Workspace = workspace.New(mem)
			p, err := processor.NewFileUpload(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			u := newUploadRun(tc.opts.Workspace, nil, []keel.Message{userFiles("here", ok, tc.file)})
			wantCode(t, "ProcessInput", u.processInput(p), tc.code)
			if n := len(mem.Writes()); n != 0 {
				t.Errorf("Got(%d writes); want nothing written", n)
			}
		})
	}
}

func TestFileUploadTooLargeMessage(t *testing.T) {
	p, err := processor.NewFileUpload(processor.FileUploadOptions{
		Workspace: workspace.New(keeltest.NewSandbox("mem")),
		MaxSize:   func(processor.FileInfo) int64 { return 10 },
	})
	if err != nil {
		t.Fatal(err)
	}
	u := newUploadRun(workspace.New(keeltest.NewSandbox("mem")), nil,
		[]keel.Message{userFiles("", keel.FilePart{Data: []byte("0123456789A"), MediaType: "text/csv", Filename: "big.csv"})})
	err = u.processInput(p)
	want := `processor: file upload: FILE_TOO_LARGE: file "big.csv": file is 11 bytes, over the 10 byte limit`
	if err == nil || err.Error() != want {
		t.Errorf("Got(error) = %v; want %q", err, want)
	}
	var tooLarge *workspace.FileTooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Limit != 10 {
		t.Errorf("Got(errors.As FileTooLargeError) = %+v; want Limit 10", tooLarge)
	}
}

func TestFileUploadNoSandboxForRun(t *testing.T) {
	ws := workspace.NewResolved(workspace.ResolverFunc(func(_ context.Context, s workspace.Scope) (workspace.Sandbox, error) {
		if s.ResourceID == "" {
			return nil, fmt.Errorf("needs a resource: %w", workspace.ErrNoSandbox)
		}
		return sandboxtest.CommandOnly(keeltest.NewSandbox(s.ResourceID)), nil
	}))
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	file := keel.FilePart{Data: []byte("a,b\n"), MediaType: "text/csv", Filename: "a.csv"}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("", file)})
	u.run.ResourceID = ""
	wantCode(t, "ProcessInput without a resource", u.processInput(p), processor.CodeNoSandbox)
	u = newUploadRun(ws, nil, []keel.Message{userFiles("", file)})
	wantCode(t, "ProcessInput with a sandbox that takes no files", u.processInput(p), processor.CodeNoWriteCapability)
	// A turn without files needs no sandbox.
	u = newUploadRun(ws, nil, []keel.Message{keel.UserText("hello")})
	u.run.ResourceID = ""
	if err := u.processInput(p); err != nil {
		t.Errorf("Got(ProcessInput of text only) error %v; want none", err)
	}
}

func TestFileUploadHistoryFailureBecomesNote(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	mem.FailWrites(errors.New("disk full"))
	ws := workspace.New(mem)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	old := keel.FilePart{Data: []byte("old,data\n"), MediaType: "text/csv", Filename: "old.csv"}
	tooBig := keel.FilePart{Data: make([]byte, workspace.MaxUploadSize+1), MediaType: "application/zip"}
	history := []keel.Message{userFiles("earlier", old, tooBig), {Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "ok"}}}}
	u := newUploadRun(ws, history, []keel.Message{keel.UserText("and now?")})
	if err := u.processInput(p); err != nil {
		t.Fatal(err)
	}
	prompt, err := u.rewrite(t, p)
	if err != nil {
		t.Fatalf("Got(RewriteLLMRequest) error %v; want none: history failures become notes", err)
	}
	want := []string{
		"[File not uploaded]\nname: old.csv\nreason: Uploading it to the sandbox failed.",
		"[File not uploaded]\nname: unnamed file\nreason: An unnamed file is 10485761 bytes, over the 10485760 byte limit.",
	}
	for i, w := range want {
		if got, ok := prompt[0].Parts[i+1].(keel.TextPart); !ok || got.Text != w {
			t.Errorf("Got(history part %d) = %#v; want %q", i+1, prompt[0].Parts[i+1], w)
		}
	}
	writes := len(mem.Writes())
	if _, err := u.rewrite(t, p); err != nil || len(mem.Writes()) != writes {
		t.Errorf("Got(second rewrite) error %v, %d more writes; want no error and no new attempt", err, len(mem.Writes())-writes)
	}
}

func TestFileUploadCurrentFailureStops(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	ws := workspace.New(mem)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	file := keel.FilePart{Data: []byte("fresh\n"), MediaType: "text/csv", Filename: "fresh.csv"}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("", file)})
	if err := u.processInput(p); err != nil {
		t.Fatal(err)
	}
	// The agent stores the turn and builds the prompt from what the store
	// returned: equal bytes, another slice.
	stored := keel.FilePart{Data: append([]byte(nil), file.Data...), MediaType: file.MediaType, Filename: file.Filename}
	u.run.Messages = []keel.Message{userFiles("", stored)}
	mem.FailWrites(errors.New("disk full"))
	_, err = u.rewrite(t, p)
	wantCode(t, "RewriteLLMRequest of a current file that fails", err, processor.CodeUploadFailed)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Got(error) = %v; want the cause, disk full", err)
	}
}

// TestFileUploadNeverOffersLinks checks that files given by http(s) URL
// or provider file ID are never offered to the filter, stay in the prompt
// for the model, and need no sandbox.
func TestFileUploadNeverOffersLinks(t *testing.T) {
	byURL := keel.FilePart{URL: "https://example.com/photo.png", MediaType: "image/png", Filename: "photo.png"}
	byID := keel.FilePart{URL: "file-abc123", MediaType: "application/pdf", Filename: "report.pdf"}
	inline := keel.FilePart{URL: keel.DataURL("text/plain", []byte("hi")), MediaType: "text/plain", Filename: "hi.txt"}
	var mu sync.Mutex
	var offered []string
	chooseAll := func(info processor.FileInfo) (bool, error) {
		mu.Lock()
		offered = append(offered, info.Name)
		mu.Unlock()
		return true, nil
	}

	t.Run("with a sandbox", func(t *testing.T) {
		offered = nil
		ws := workspace.New(keeltest.NewSandbox("mem"))
		p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, Filter: chooseAll})
		if err != nil {
			t.Fatal(err)
		}
		history := []keel.Message{userFiles("earlier", byURL), {Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "ok"}}}}
		u := newUploadRun(ws, history, []keel.Message{userFiles("", byURL, byID, inline)})
		if err := u.processInput(p); err != nil {
			t.Fatalf("Got(ProcessInput) error %v; want none: links are left to the model", err)
		}
		prompt, err := u.rewrite(t, p)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := prompt[0].Parts[1].(keel.FilePart); !ok || f.URL != byURL.URL {
			t.Errorf("Got(history part 1) = %#v; want the URL file as sent", prompt[0].Parts[1])
		}
		turn := prompt[2].Parts
		if f, ok := turn[1].(keel.FilePart); !ok || f.URL != byURL.URL {
			t.Errorf("Got(part 1) = %#v; want the URL file as sent", turn[1])
		}
		if f, ok := turn[2].(keel.FilePart); !ok || f.URL != byID.URL {
			t.Errorf("Got(part 2) = %#v; want the provider's file ID as sent", turn[2])
		}
		if note, ok := turn[3].(keel.TextPart); !ok || !strings.Contains(note.Text, "name: hi.txt\ntype: text/plain\nsize: 2 bytes") {
			t.Errorf("Got(part 3) = %#v; want the data: URL file uploaded", turn[3])
		}
		for _, name := range offered {
			if name != "hi.txt" {
				t.Errorf("Got(filter offered) = %q; want only hi.txt", offered)
				break
			}
		}
	})

	t.Run("without a sandbox", func(t *testing.T) {
		offered = nil
		ws := noSandboxAnywhere
		p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, Filter: chooseAll})
		if err != nil {
			t.Fatal(err)
		}
		u := newUploadRun(ws, nil, []keel.Message{userFiles("", byURL, byID)})
		if err := u.processInput(p); err != nil {
			t.Errorf("Got(ProcessInput of links only) error %v; want none: links need no sandbox", err)
		}
		if prompt, err := u.rewrite(t, p); err != nil || len(prompt[0].Parts) != 3 {
			t.Errorf("Got(rewrite) = %#v, %v; want the links left", prompt, err)
		}
		if len(offered) != 0 {
			t.Errorf("Got(filter offered) = %q; want nothing", offered)
		}
	})
}

func TestFileUploadLeavesOthers(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	ws := workspace.New(mem)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	byURL := keel.FilePart{URL: "https://example.com/a.png", MediaType: "image/png"}
	toolFile := keel.FilePart{Data: []byte("tool output"), MediaType: "text/plain", Filename: "out.txt"}
	history := []keel.Message{
		userFiles("old", byURL),
		{Role: keel.RoleAssistant, Parts: []keel.Part{toolFile}},
	}
	u := newUploadRun(ws, history, []keel.Message{keel.UserText("hi")})
	if err := u.processInput(p); err != nil {
		t.Fatal(err)
	}
	prompt, err := u.rewrite(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := prompt[0].Parts[1].(keel.FilePart); !ok {
		t.Errorf("Got(history file by URL) = %#v; want it left as sent", prompt[0].Parts[1])
	}
	if _, ok := prompt[1].Parts[0].(keel.FilePart); !ok {
		t.Errorf("Got(assistant file) = %#v; want it untouched", prompt[1].Parts[0])
	}
	if n := len(mem.Writes()); n != 0 {
		t.Errorf("Got(%d writes); want none", n)
	}
}

func TestFileUploadConcurrentRuns(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	ws := workspace.New(mem)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			file := keel.FilePart{Data: fmt.Appendf(nil, "run %d\n", i), MediaType: "text/csv", Filename: "r.csv"}
			u := newUploadRun(ws, nil, []keel.Message{userFiles("", file)})
			u.run.ThreadID = fmt.Sprintf("thread-%d", i)
			if err := u.processInput(p); err != nil {
				t.Error(err)
				return
			}
			prompt, err := u.rewrite(t, p)
			want := fmt.Sprintf("path: /home/user/uploads/thread-%d/", i)
			if err != nil || !strings.Contains(prompt[0].Parts[1].(keel.TextPart).Text, want) {
				t.Errorf("Got(run %d prompt) = %#v, %v; want a note with %q", i, prompt[0].Parts, err, want)
			}
		})
	}
	wg.Wait()
	if n := len(mem.Files()); n != 8 {
		t.Errorf("Got(%d files); want 8, one per run", n)
	}
}

// noSandboxAnywhere is a workspace whose resolver finds no sandbox for any
// run: FileUpload accepts it, and fails only a turn that brings a file.
var noSandboxAnywhere = workspace.NewResolved(workspace.ResolverFunc(func(context.Context, workspace.Scope) (workspace.Sandbox, error) {
	return nil, workspace.ErrNoSandbox
}))
