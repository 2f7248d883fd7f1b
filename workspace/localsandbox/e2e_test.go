package localsandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

var notePath = regexp.MustCompile(`(?m)^path: (/home/user/uploads/\S+)$`)

// pathFromNote finds the upload note in a prompt's user messages.
func pathFromNote(msgs []keel.Message) string {
	for _, m := range msgs {
		if m.Role != keel.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			if t, ok := p.(keel.TextPart); ok && strings.HasPrefix(t.Text, "[File uploaded to the sandbox]") {
				if mm := notePath.FindStringSubmatch(t.Text); mm != nil {
					return mm[1]
				}
			}
		}
	}
	return ""
}

// callWC is the model's second answer: run wc -c on the path the note
// gave it.
func callWC(req *keel.Request) keeltest.Reply {
	path := pathFromNote(req.Messages)
	if path == "" {
		return keeltest.Reply{Err: fmt.Errorf("no upload note in the prompt")}
	}
	input, _ := json.Marshal(map[string]string{"command": "wc -c < " + workspace.ShellQuote(path)})
	return keeltest.Reply{ToolCalls: []keel.ToolCallPart{{ID: "call-1", Name: "run_command", Input: input}}}
}

// answerFromTool is the model's last answer: the byte count the tool gave.
func answerFromTool(req *keel.Request) keeltest.Reply {
	last := req.Messages[len(req.Messages)-1]
	for _, p := range last.Parts {
		if tr, ok := p.(keel.ToolResultPart); ok && !tr.IsError {
			var out tool.CommandOutput
			if err := json.Unmarshal(tr.Output, &out); err == nil {
				return keeltest.Reply{Text: "leads.xlsx has " + strings.TrimSpace(out.Stdout) + " bytes"}
			}
		}
	}
	return keeltest.Reply{Text: "the tool failed"}
}

func e2eFile() keel.FilePart {
	data := make([]byte, 48_213)
	copy(data, "PK\x03\x04")
	for i := 4; i < len(data); i++ {
		data[i] = byte(i * 7)
	}
	return keel.FilePart{Data: data, MediaType: xlsxType, Filename: "leads.xlsx"}
}

// TestEndToEndRefusedFileReachesTheTool runs the agent with its default
// processors and a per-user bubblewrap sandbox: the model refuses
// leads.xlsx, the file is uploaded, and the model's run_command on the
// note's path sees the whole file.
func TestEndToEndRefusedFileReachesTheTool(t *testing.T) {
	requireBwrap(t)
	root := sandboxtest.ReachableTempDir(t)
	ws := workspace.NewResolved(localsandbox.NewResolver(root, localsandbox.PerResource, localsandbox.Options{}))
	model := keeltest.NewModel(
		keeltest.Reply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsxType}},
		keeltest.Reply{Respond: callWC},
		keeltest.Reply{Respond: answerFromTool},
	)
	mem := memory.NewInMemory()
	a, err := agent.New(agent.Config{
		ID: "analyst", Model: model, Memory: mem, Workspace: ws,
		Tools:  tool.SandboxTools(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	file := e2eFile()
	res, err := a.Generate(context.Background(),
		[]keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "How big is this?"}, file}}},
		agent.WithResource("alice"), agent.WithThread("thread-1"))
	if err != nil {
		t.Fatalf("Got(Generate) error %v; want none", err)
	}
	want := "leads.xlsx has " + strconv.Itoa(len(file.Data)) + " bytes"
	if res.Text != want {
		t.Errorf("Got(res.Text) = %q; want %q", res.Text, want)
	}
	if len(res.ToolResults) != 1 || res.ToolResults[0].IsError {
		t.Fatalf("Got(tool results) = %+v; want one success", res.ToolResults)
	}
	var out tool.CommandOutput
	if err := json.Unmarshal(res.ToolResults[0].Output, &out); err != nil || out.ExitCode != 0 ||
		strings.TrimSpace(out.Stdout) != strconv.Itoa(len(file.Data)) {
		t.Errorf("Got(run_command output) = %+v, %v; want exit 0 and %d", out, err, len(file.Data))
	}

	// The first prompt held the file, the second the note in its place.
	prompts := model.Prompts()
	if len(prompts) != 3 {
		t.Fatalf("Got(%d model calls); want 3", len(prompts))
	}
	if _, ok := prompts[0][0].Parts[1].(keel.FilePart); !ok {
		t.Errorf("Got(first prompt part) = %#v; want the file", prompts[0][0].Parts[1])
	}
	path := pathFromNote(prompts[1])
	if !strings.HasPrefix(path, "/home/user/uploads/thread-1/") || !strings.HasSuffix(path, ".xlsx") {
		t.Errorf("Got(note path) = %q; want /home/user/uploads/thread-1/<sha256>.xlsx", path)
	}
	var uploaded bool
	for _, rec := range res.Recoveries {
		uploaded = uploaded || rec.Processor == processor.UnsupportedFileHandlerID && rec.Action == "uploaded" &&
			len(rec.Files) == 1 && rec.Files[0].Path == path
	}
	if !uploaded {
		t.Errorf("Got(recoveries) = %+v; want the upload of leads.xlsx reported", res.Recoveries)
	}

	// The file sits in alice's sandbox on the host, byte for byte, and the
	// stored message keeps it.
	hostPath := filepath.Join(root, "resource-"+localsandbox.DirName("alice"), strings.TrimPrefix(path, "/home/user/"))
	got, err := os.ReadFile(hostPath)
	if err != nil || string(got) != string(file.Data) {
		t.Errorf("Got(host file %s) %d bytes, %v; want the %d bytes sent", hostPath, len(got), err, len(file.Data))
	}
	page, err := mem.ListMessages(context.Background(), "alice", "thread-1", memory.ListMessagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := page.Messages[0].Parts[1].(keel.FilePart); !ok || len(f.Data) != len(file.Data) {
		t.Errorf("Got(stored first message part) = %T; want the file kept", page.Messages[0].Parts[1])
	}
}

// TestEndToEndFileUploadProcessor puts the file in the sandbox before the
// first call, through commands only, and the model works on it at once.
func TestEndToEndFileUploadProcessor(t *testing.T) {
	requireBwrap(t)
	sb := newIsolated(t)
	ws := workspace.New(sandboxtest.CommandOnly(sb))
	up, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	model := keeltest.NewModel(keeltest.Reply{Respond: callWC}, keeltest.Reply{Respond: answerFromTool})
	a, err := agent.New(agent.Config{
		ID: "analyst", Model: model, Workspace: ws, Tools: []tool.Tool{tool.RunCommand()},
		InputProcessors: []processor.Processor{up},
	})
	if err != nil {
		t.Fatal(err)
	}
	file := e2eFile()
	res, err := a.Generate(context.Background(), []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{file}}})
	if err != nil {
		t.Fatalf("Got(Generate) error %v; want none", err)
	}
	if want := "leads.xlsx has " + strconv.Itoa(len(file.Data)) + " bytes"; res.Text != want {
		t.Errorf("Got(res.Text) = %q; want %q", res.Text, want)
	}
	if len(model.Prompts()) != 2 {
		t.Errorf("Got(%d model calls); want 2: no refusal, the file never reached the model", len(model.Prompts()))
	}
	if path := pathFromNote(model.Prompts()[0]); !strings.HasPrefix(path, "/home/user/uploads/shared/") {
		t.Errorf("Got(first prompt note path) = %q; want one under uploads/shared/ (a run without thread or resource)", path)
	}
}

// TestEndToEndFileTooLargeStopsTheTurn: an over-limit file stops the turn
// before anything is stored, written or sent.
func TestEndToEndFileTooLargeStopsTheTurn(t *testing.T) {
	sb := newIsolated(t)
	ws := workspace.New(sb)
	up, err := processor.NewFileUpload(processor.FileUploadOptions{
		Workspace: ws,
		Filter:    func(f processor.FileInfo) (bool, error) { return f.Extension == "csv", nil },
		MaxSize:   func(processor.FileInfo) int64 { return 1000 },
	})
	if err != nil {
		t.Fatal(err)
	}
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	mem := memory.NewInMemory()
	a, err := agent.New(agent.Config{ID: "analyst", Model: model, Memory: mem, Workspace: ws, InputProcessors: []processor.Processor{up}})
	if err != nil {
		t.Fatal(err)
	}
	big := keel.FilePart{Data: []byte(strings.Repeat("a,b\n", 300)), MediaType: "text/csv", Filename: "big.csv"}
	_, err = a.Generate(context.Background(), []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{big}}},
		agent.WithResource("alice"), agent.WithThread("thread-1"))
	var fe *processor.FileUploadError
	if !errors.As(err, &fe) || fe.Code != processor.CodeFileTooLarge || fe.File != "big.csv" {
		t.Fatalf("Got(Generate) error %v; want a FILE_TOO_LARGE FileUploadError for big.csv", err)
	}
	if model.Calls() != 0 {
		t.Errorf("Got(%d model calls); want none", model.Calls())
	}
	if entries, err := os.ReadDir(sb.Dir()); err != nil || len(entries) != 0 {
		t.Errorf("Got(sandbox entries) = %v, %v; want an empty sandbox", entries, err)
	}
	if page, err := mem.ListMessages(context.Background(), "alice", "thread-1", memory.ListMessagesOptions{}); err == nil && len(page.Messages) != 0 {
		t.Errorf("Got(%d stored messages); want none", len(page.Messages))
	}
}
