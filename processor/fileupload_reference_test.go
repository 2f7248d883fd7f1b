package processor_test

import (
	"context"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// statCounting counts the uploads that reach the sandbox: each one looks
// for its file first.
type statCounting struct {
	*keeltest.Sandbox
	uploads atomic.Int32
}

func (s *statCounting) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if strings.HasPrefix(name, "uploads/") && !strings.HasSuffix(name, ".part") {
		s.uploads.Add(1)
	}
	return s.Sandbox.Stat(ctx, name)
}

// TestFileUploadSameBytesOnce checks that the same bytes sent twice in one
// request, under two names, are uploaded once, by content, and each copy
// gets a note with its own name and the one path.
func TestFileUploadSameBytesOnce(t *testing.T) {
	sb := &statCounting{Sandbox: keeltest.NewSandbox("mem")}
	ws := workspace.New(sb)
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("region,leads\nnorth,3\n")
	a := keel.FilePart{Data: data, MediaType: "text/csv", Filename: "a.csv"}
	b := keel.FilePart{Data: append([]byte(nil), data...), MediaType: "text/csv", Filename: "b.csv"}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("both", a, b)})
	if err := u.processInput(p); err != nil {
		t.Fatal(err)
	}
	prompt, err := u.rewrite(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := sb.uploads.Load(); n != 1 {
		t.Errorf("Got(uploads) = %d; want 1: the same bytes are written once", n)
	}
	parts := prompt[0].Parts
	if len(parts) != 3 {
		t.Fatalf("Got(parts) = %v; want the text and two notes", parts)
	}
	noteA, noteB := parts[1].(keel.TextPart).Text, parts[2].(keel.TextPart).Text
	pathOf := func(note string) string {
		_, rest, _ := strings.Cut(note, "path: ")
		p, _, _ := strings.Cut(rest, "\n")
		return p
	}
	if !strings.Contains(noteA, "name: a.csv") || !strings.Contains(noteB, "name: b.csv") || pathOf(noteA) != pathOf(noteB) || pathOf(noteA) == "" {
		t.Errorf("Got(notes) = %q, %q; want a.csv and b.csv at one path", noteA, noteB)
	}
}

// TestFileUploadSizeBeforeDecoding checks that data over the limit is
// FILE_TOO_LARGE, with its size, even when it cannot be decoded: base64
// and percent-encoded data: URLs alike, on input and, for a history
// file, in its note.
func TestFileUploadSizeBeforeDecoding(t *testing.T) {
	const limit = 100
	badBase64 := "data:application/zip;base64," + strings.Repeat("!!!!", 50) // 200 characters: 150 bytes
	badPercent := "data:text/plain," + strings.Repeat("ab", 60) + "%zz"      // 123 characters: 121 bytes
	smallBad := "data:text/plain,%zz"
	for _, tc := range []struct {
		name string
		url  string
		code string
		size string
	}{
		{"base64 over the limit", badBase64, processor.CodeFileTooLarge, "150 bytes"},
		{"percent-encoded over the limit", badPercent, processor.CodeFileTooLarge, "121 bytes"},
		{"bad data within the limit", smallBad, processor.CodeInvalidFileData, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspace.New(keeltest.NewSandbox("mem"))
			p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws,
				MaxSize: func(processor.FileInfo) int64 { return limit }})
			if err != nil {
				t.Fatal(err)
			}
			f := keel.FilePart{URL: tc.url, MediaType: "application/zip", Filename: "x.zip"}
			err = newUploadRun(ws, nil, []keel.Message{userFiles("see", f)}).processInput(p)
			wantCode(t, "ProcessInput", err, tc.code)
			if err != nil && !strings.Contains(err.Error(), tc.size) {
				t.Errorf("Got(error) %v; want it to say %q", err, tc.size)
			}
			if tc.code != processor.CodeFileTooLarge {
				return
			}
			var tl *workspace.FileTooLargeError
			if !errors.As(err, &tl) || tl.Limit != limit {
				t.Errorf("Got(error) %v; want a *workspace.FileTooLargeError with the limit", err)
			}
			// The same file in the history gets the note with its size.
			hist := newUploadRun(ws, []keel.Message{userFiles("earlier", f)}, []keel.Message{keel.UserText("now")})
			if err := hist.processInput(p); err != nil {
				t.Fatal(err)
			}
			prompt, err := hist.rewrite(t, p)
			if err != nil {
				t.Fatal(err)
			}
			if note := prompt[0].Parts[1].(keel.TextPart).Text; !strings.Contains(note, "is "+tc.size+", over the 100 byte limit") {
				t.Errorf("Got(history note) = %q; want its size %s over the limit", note, tc.size)
			}
		})
	}
}

// TestFileUploadInvalidLimitSaysWhat checks that a wrong MaxSize's error
// gives the value it got.
func TestFileUploadInvalidLimitSaysWhat(t *testing.T) {
	for _, limit := range []int64{-5, 0, workspace.MaxUploadSize + 1} {
		ws := workspace.New(keeltest.NewSandbox("mem"))
		p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, MaxSize: func(processor.FileInfo) int64 { return limit }})
		if err != nil {
			t.Fatal(err)
		}
		f := keel.FilePart{Data: []byte("a"), MediaType: "text/plain", Filename: "a.txt"}
		err = newUploadRun(ws, nil, []keel.Message{userFiles("see", f)}).processInput(p)
		wantCode(t, "ProcessInput", err, processor.CodeInvalidMaxFileSize)
		if want := "MaxSize gave " + strconv.FormatInt(limit, 10) + " bytes"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Got(error with MaxSize %d) %v; want it to say %q", limit, err, want)
		}
	}
}

// TestFileUploadRefusesWorkspaceWithoutSandbox checks that a workspace
// with no sandbox at all is refused at construction, while a resolver is
// asked only by the turns that bring a file.
func TestFileUploadRefusesWorkspaceWithoutSandbox(t *testing.T) {
	_, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: workspace.New(nil)})
	wantCode(t, "NewFileUpload(workspace.New(nil))", err, processor.CodeNoSandbox)
	if _, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: noSandboxAnywhere}); err != nil {
		t.Errorf("Got(NewFileUpload(resolver)) error %v; want none", err)
	}
}

// TestFileUploadNamelessFile checks that a file sent without a name is
// described to the filter and the limit without an extension, and that
// its note says "unnamed file", while its path still gets its media
// type's extension.
func TestFileUploadNamelessFile(t *testing.T) {
	ws := workspace.New(keeltest.NewSandbox("mem"))
	var seen []processor.FileInfo
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws,
		MaxSize: func(fi processor.FileInfo) int64 { seen = append(seen, fi); return 1 << 20 }})
	if err != nil {
		t.Fatal(err)
	}
	f := keel.FilePart{Data: []byte("%PDF-1.4\n"), MediaType: "application/pdf"}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("see", f)})
	if err := u.processInput(p); err != nil {
		t.Fatal(err)
	}
	prompt, err := u.rewrite(t, p)
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range seen {
		if fi.Extension != "" || fi.Name != "" || fi.MediaType != "application/pdf" {
			t.Errorf("Got(MaxSize told) %+v; want no name, no extension, application/pdf", fi)
		}
	}
	note := prompt[0].Parts[1].(keel.TextPart).Text
	if !strings.Contains(note, "\nname: unnamed file\n") || !strings.Contains(note, ".pdf\n") {
		t.Errorf("Got(note) = %q; want name: unnamed file, and a .pdf path", note)
	}
}

// TestFileUploadFilterFailsOnHistory checks that a filter that fails on a
// file of the thread's history stops the turn with INVALID_FILTER.
func TestFileUploadFilterFailsOnHistory(t *testing.T) {
	ws := workspace.New(keeltest.NewSandbox("mem"))
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws,
		Filter: func(fi processor.FileInfo) (bool, error) {
			if fi.Name == "old.bin" {
				return false, errors.New("cannot judge")
			}
			return true, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	old := keel.FilePart{Data: []byte{1, 2, 3}, MediaType: "application/octet-stream", Filename: "old.bin"}
	u := newUploadRun(ws, []keel.Message{userFiles("earlier", old)}, []keel.Message{keel.UserText("and now?")})
	if err := u.processInput(p); err != nil {
		t.Fatalf("Got(ProcessInput) error %v; want none: the turn's messages hold no file", err)
	}
	_, err = u.rewrite(t, p)
	wantCode(t, "RewriteLLMRequest with a history file the filter fails on", err, processor.CodeInvalidFilter)
}

// TestFileUploadAttachesText checks that with converters the model gets
// the note first, then the file's text, and the file is reported as
// converted with its path.
func TestFileUploadAttachesText(t *testing.T) {
	ws := workspace.New(keeltest.NewSandbox("mem"))
	var recs []processor.Recovery
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws, Converters: convert.Default()})
	if err != nil {
		t.Fatal(err)
	}
	f := keel.FilePart{Data: []byte("region,leads\nnorth,3\n"), MediaType: "text/csv", Filename: "leads.csv"}
	u := newUploadRun(ws, nil, []keel.Message{userFiles("how many?", f)})
	listening := processor.NewRun(u.run.ID, func(r processor.Recovery) { recs = append(recs, r) })
	listening.AgentID, listening.ThreadID, listening.ResourceID = u.run.AgentID, u.run.ThreadID, u.run.ResourceID
	listening.Workspace, listening.Messages, listening.Logger = ws, u.run.Messages, u.run.Logger
	u.run = listening
	if err := u.processInput(p); err != nil {
		t.Fatal(err)
	}
	prompt, err := u.rewrite(t, p)
	if err != nil {
		t.Fatal(err)
	}
	parts := prompt[0].Parts
	if len(parts) != 3 {
		t.Fatalf("Got(parts) = %#v; want the question, the note, the text", parts)
	}
	note, text := parts[1].(keel.TextPart).Text, parts[2].(keel.TextPart).Text
	if !strings.HasPrefix(note, "[File uploaded to the sandbox]\npath: /home/user/uploads/thread-1/") {
		t.Errorf("Got(part 2) = %q; want the upload note", note)
	}
	if !strings.HasPrefix(text, "[Text of leads.csv") || !strings.Contains(text, "north,3") {
		t.Errorf("Got(part 3) = %q; want the file's text, labelled", text)
	}
	if len(recs) != 1 || recs[0].Action != processor.OutcomeConverted || len(recs[0].Files) != 1 ||
		recs[0].Files[0].Conversion == nil || !strings.HasPrefix(recs[0].Files[0].Path, "/home/user/uploads/") {
		t.Errorf("Got(recoveries) = %+v; want one converted file with its path", recs)
	}
	// Without converters, the note alone, as the reference framework.
	plain, _ := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	u2 := newUploadRun(ws, nil, []keel.Message{userFiles("how many?", f)})
	if err := u2.processInput(plain); err != nil {
		t.Fatal(err)
	}
	if prompt, err := u2.rewrite(t, plain); err != nil || len(prompt[0].Parts) != 2 {
		t.Errorf("Got(prompt without converters) = %v, %v; want the question and the note", prompt, err)
	}
}
