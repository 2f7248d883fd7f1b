package processor_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// TestFileUploadTakesAFileOfExactlyTheLimit checks the limit's edge: a
// file of exactly the limit is taken; one byte more is refused (see
// TestFileUploadInputErrors).
func TestFileUploadTakesAFileOfExactlyTheLimit(t *testing.T) {
	ws := workspace.New(keeltest.NewSandbox("mem"))
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, MaxSize: func(processor.FileInfo) int64 { return 10 }})
	if err != nil {
		t.Fatal(err)
	}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("here", keel.FilePart{Data: []byte("0123456789"), MediaType: "text/csv", Filename: "ten.csv"})})
	if err := u.processInput(p); err != nil {
		t.Fatalf("Got(ProcessInput with a file of exactly the limit) = %v; want it taken", err)
	}
}

// TestFileUploadRewriteTakesAFileOfExactlyTheLimit checks the same edge
// on the path of each model call, where a file of the history is uploaded
// before the call: exactly the limit is uploaded, not noted as too large.
func TestFileUploadRewriteTakesAFileOfExactlyTheLimit(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	ws := workspace.New(mem)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, MaxSize: func(processor.FileInfo) int64 { return 10 }})
	if err != nil {
		t.Fatal(err)
	}
	history := []keel.Message{userFiles("earlier", keel.FilePart{Data: []byte("0123456789"), MediaType: "text/csv", Filename: "ten.csv"})}
	u := newUploadRun(ws, history, []keel.Message{keel.UserText("and now?")})
	prompt, err := u.rewrite(t, p)
	if err != nil {
		t.Fatalf("Got(rewrite) = %v; want the history file uploaded", err)
	}
	if n := len(mem.Writes()); n != 1 {
		t.Errorf("Got(sandbox writes) = %d; want 1: a file of exactly the limit is uploaded", n)
	}
	if got := prompt[0].Text(); strings.Contains(got, "not uploaded") || !strings.Contains(got, "ten.csv") {
		t.Errorf("Got(history message) = %q; want the upload note for ten.csv", got)
	}
}

// TestFileUploadLogsAFailedHistoryUpload checks that a history file whose
// upload fails, which becomes a note rather than the run's error, is
// logged with its cause.
func TestFileUploadLogsAFailedHistoryUpload(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	ws := workspace.New(mem)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	history := []keel.Message{userFiles("earlier", keel.FilePart{Data: []byte("a,b\n"), MediaType: "text/csv", Filename: "old.csv"})}
	u := newUploadRun(ws, history, []keel.Message{keel.UserText("and now?")})
	var logs bytes.Buffer
	u.run.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	mem.FailWrites(errors.New("disk full"))
	if _, err := u.rewrite(t, p); err != nil {
		t.Fatalf("Got(rewrite) = %v; want a note for the history file, not an error", err)
	}
	if got := logs.String(); !strings.Contains(got, "upload to the sandbox failed") || !strings.Contains(got, "disk full") || !strings.Contains(got, "old.csv") {
		t.Errorf("Got(logs) = %q; want the failed upload of old.csv logged with its cause", got)
	}
}
