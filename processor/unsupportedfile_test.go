package processor_test

import (
	"bytes"
	"context"
	"crypto/sha256"
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
	"github.com/keel-go/keel/workspace/localsandbox"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

var (
	xlsxData = []byte("PK\x03\x04 leads spreadsheet")
	xlsx     = keel.FilePart{Data: xlsxData, MediaType: xlsxType, Filename: "leads.xlsx"}
	pdf      = keel.FilePart{Data: []byte("%PDF-1.7"), MediaType: "application/pdf", Filename: "brief.pdf"}
	png      = keel.FilePart{Data: []byte("\x89PNG"), MediaType: "image/png", Filename: "logo.png"}
	csv      = keel.FilePart{Data: []byte("a,b\n1,2\n"), MediaType: "text/csv; charset=utf-8", Filename: "t.csv"}
)

func userMsg(parts ...keel.Part) keel.Message { return keel.Message{Role: keel.RoleUser, Parts: parts} }

func text(s string) keel.TextPart { return keel.TextPart{Text: s} }

// fileRun returns a run of thread "thread-1" over msgs, with sb as its
// sandbox when not nil, logging to logs when not nil.
func fileRun(sb workspace.Sandbox, logs *bytes.Buffer, msgs ...keel.Message) *processor.Run {
	run := processor.NewRun("run-1", nil)
	run.ThreadID = "thread-1"
	run.Messages = msgs
	if sb != nil {
		run.Workspace = workspace.New(sb)
	}
	if logs != nil {
		run.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	return run
}

// rewrite runs the handler's LLM-request hook on a clone of the run's
// messages, as the agent does, and returns the prompt.
func rewrite(t *testing.T, h *processor.UnsupportedFileHandler, run *processor.Run) []keel.Message {
	t.Helper()
	req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(run.Messages)}
	if err := h.RewriteLLMRequest(context.Background(), req); err != nil {
		t.Fatalf("RewriteLLMRequest() error = %v; want nil", err)
	}
	return req.Prompt
}

// refuse makes the run's first call fail with err and checks the
// handler's decision.
func refuse(t *testing.T, h *processor.UnsupportedFileHandler, run *processor.Run, err error, want bool) {
	t.Helper()
	d, herr := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: err, Prompt: run.Messages})
	if herr != nil {
		t.Fatalf("HandleAPIError(%v) error = %v; want nil", err, herr)
	}
	if d.Retry != want || d.Delay != 0 {
		t.Fatalf("Got(%q) = %+v; want Retry %v, no delay", err, d, want)
	}
}

func unsupported(mediaType string) error {
	return &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + mediaType}
}

func placeholder(name string) string { return "[Attachment unavailable: " + name + "]" }

func uploadNote(name, mediaType string, data []byte, ext string) string {
	return fmt.Sprintf("[File uploaded to the sandbox]\npath: /home/user/uploads/thread-1/%x.%s\nname: %s\ntype: %s\nsize: %d bytes",
		sha256.Sum256(data), ext, name, mediaType, len(data))
}

// partTexts describes a message's parts: a text part by its text, a file
// by "file:NAME".
func partTexts(m keel.Message) []string {
	var out []string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case keel.TextPart:
			out = append(out, p.Text)
		case keel.FilePart:
			out = append(out, "file:"+p.Filename)
		default:
			out = append(out, p.PartType())
		}
	}
	return out
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

const docxType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

var docx = keel.FilePart{Data: []byte("PK docx"), MediaType: docxType, Filename: "memo.docx"}

// namedAnswer is Gemini's 400 for a type it does not read, as the adapter
// reports it: the type in MediaType.
func namedAnswer(mediaType string) *keel.APICallError {
	return withType(&keel.APICallError{Provider: "google", StatusCode: 400, Code: "INVALID_ARGUMENT",
		Message: "Unsupported MIME type: " + mediaType}, mediaType)
}

func withType(e *keel.APICallError, mediaType string) *keel.APICallError {
	e.MediaType = mediaType
	return e
}

func TestUnsupportedFileHandlerDecides(t *testing.T) {
	wrap := func(err error, levels int) error { return deepWrap(err, levels-1) }
	docxURL := keel.FilePart{URL: "https://example.com/a.docx", MediaType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
	assistantFile := keel.Message{Role: keel.RoleAssistant, Parts: []keel.Part{xlsx}}
	toolFile := keel.Message{Role: keel.RoleTool, Parts: []keel.Part{xlsx}}
	tests := []struct {
		name    string
		msgs    []keel.Message
		prompt  []keel.Message // when set, the failed call's prompt
		err     error
		retries int
		want    bool
	}{
		{"named refusal", []keel.Message{userMsg(text("hi"), xlsx)}, nil, unsupported(xlsxType), 0, true},
		{"named refusal anthropic form", []keel.Message{userMsg(xlsx)}, nil, &keel.UnsupportedFunctionalityError{Functionality: "media type: Application/ZIP"}, 0, true},
		{"named refusal, file only in an assistant message", []keel.Message{userMsg(text("hi")), assistantFile}, nil, unsupported("image/png"), 0, true},
		{"named refusal, no file in the run", []keel.Message{userMsg(text("hi"))}, nil, unsupported(xlsxType), 0, false},
		{"refusal naming no media type", []keel.Message{userMsg(xlsx)}, nil, &keel.UnsupportedFunctionalityError{Functionality: "tool choice type: required"}, 0, false},
		{"400 with an xlsx", []keel.Message{userMsg(xlsx)}, nil, apiErr(400), 0, true},
		{"500 with an xlsx", []keel.Message{userMsg(xlsx)}, nil, apiErr(500), 0, true},
		{"502 with an xlsx", []keel.Message{userMsg(xlsx)}, nil, apiErr(502), 0, true},
		{"408 with an xlsx", []keel.Message{userMsg(xlsx)}, nil, apiErr(408), 0, false},
		{"409 with an xlsx", []keel.Message{userMsg(xlsx)}, nil, apiErr(409), 0, false},
		{"429 with an xlsx", []keel.Message{userMsg(xlsx)}, nil, apiErr(429), 0, false},
		{"503 with an xlsx", []keel.Message{userMsg(xlsx)}, nil, apiErr(503), 0, false},
		{"504 with an xlsx", []keel.Message{userMsg(xlsx)}, nil, apiErr(504), 0, false},
		{"400 with a PDF only", []keel.Message{userMsg(pdf, png, csv)}, nil, apiErr(400), 0, false},
		{"400 with a file of no media type", []keel.Message{userMsg(keel.FilePart{Data: []byte("x")})}, nil, apiErr(400), 0, true},
		{"400 with an xlsx URL", []keel.Message{userMsg(docxURL)}, nil, apiErr(400), 0, true},
		{"400 with an xlsx in history", []keel.Message{userMsg(xlsx), {Role: keel.RoleAssistant, Parts: []keel.Part{text("ok")}}, userMsg(text("and now?"))}, nil, apiErr(400), 0, true},
		{"400 with an xlsx only in the prompt", []keel.Message{userMsg(text("hi"))}, []keel.Message{userMsg(xlsx)}, apiErr(400), 0, true},
		{"400 with an xlsx from an assistant", []keel.Message{userMsg(text("hi")), assistantFile}, nil, apiErr(400), 0, false},
		// A tool's files (an MCP tool's image) are handled as a user's.
		{"400 with an xlsx from a tool", []keel.Message{userMsg(text("hi")), toolFile}, nil, apiErr(400), 0, true},
		{"400 without files", []keel.Message{userMsg(text("hi"))}, nil, apiErr(400), 0, false},
		{"not the first failure", []keel.Message{userMsg(xlsx)}, nil, unsupported(xlsxType), 1, false},
		{"plain error", []keel.Message{userMsg(xlsx)}, nil, errors.New("boom"), 0, false},
		{"joined", []keel.Message{userMsg(xlsx)}, nil, errors.Join(errors.New("stream closed"), apiErr(502)), 0, true},
		{"joined, one retry-later", []keel.Message{userMsg(xlsx)}, nil, errors.Join(apiErr(503), errors.New("x")), 0, false},
		{"chain 1 deep", []keel.Message{userMsg(xlsx)}, nil, wrap(unsupported(xlsxType), 1), 0, true},
		{"chain 2 deep", []keel.Message{userMsg(xlsx)}, nil, wrap(unsupported(xlsxType), 2), 0, true},
		{"chain 3 deep", []keel.Message{userMsg(xlsx)}, nil, wrap(apiErr(400), 3), 0, true},
		{"chain 4 deep", []keel.Message{userMsg(xlsx)}, nil, wrap(apiErr(400), 4), 0, true},
		{"chain 5 deep", []keel.Message{userMsg(xlsx)}, nil, wrap(unsupported(xlsxType), 5), 0, true},
		{"chain 6 deep", []keel.Message{userMsg(xlsx)}, nil, wrap(unsupported(xlsxType), 6), 0, false},
		{"chain 6 deep through a join", []keel.Message{userMsg(xlsx)}, nil, wrap(errors.Join(errors.New("x"), wrap(apiErr(400), 2)), 4), 0, false},
		{"chain 5 deep through a join", []keel.Message{userMsg(xlsx)}, nil, wrap(errors.Join(errors.New("x"), wrap(apiErr(400), 2)), 3), 0, true},
		{"401 with an xlsx: a bad key, not the file", []keel.Message{userMsg(xlsx)}, nil, apiErr(401), 0, false},
		{"403 with an xlsx: no access, not the file", []keel.Message{userMsg(xlsx)}, nil, apiErr(403), 0, false},
		{"404 with an xlsx: unknown model, not the file", []keel.Message{userMsg(xlsx)}, nil, apiErr(404), 0, false},
		{"401 joined with an SDK refusal", []keel.Message{userMsg(xlsx)}, nil, errors.Join(unsupported(xlsxType), wrap(apiErr(401), 2)), 0, false},
		{"answer naming the type in the run", []keel.Message{userMsg(docx)}, nil, namedAnswer(docxType), 0, true},
		{"answer naming a readable type in the run", []keel.Message{userMsg(csv)}, nil, namedAnswer("text/csv"), 0, true},
		{"answer naming a type not in the run, an unreadable file there", []keel.Message{userMsg(xlsx)}, nil, namedAnswer(docxType), 0, true},
		{"answer naming a type not in the run, only readable files", []keel.Message{userMsg(csv, pdf)}, nil, namedAnswer(docxType), 0, false},
		{"answer naming a type only an assistant sent", []keel.Message{userMsg(csv), {Role: keel.RoleAssistant, Parts: []keel.Part{docx}}}, nil, namedAnswer(docxType), 0, false},
		{"answer naming a type, but asking to retry later", []keel.Message{userMsg(docx)}, nil, withType(apiErr(503), docxType), 0, false},
	}
	h := processor.NewUnsupportedFileHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := fileRun(nil, nil, tt.msgs...)
			bumpRetries(t, run, tt.retries)
			prompt := tt.prompt
			if prompt == nil {
				prompt = run.Messages
			}
			d, err := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: tt.err, Prompt: prompt})
			if err != nil || d.Retry != tt.want || d.Delay != 0 {
				t.Fatalf("Got(%q) = %+v, %v; want Retry %v, no delay, no error", tt.err, d, err, tt.want)
			}
		})
	}
}

func TestUnsupportedFileHandlerSelects(t *testing.T) {
	bare := keel.FilePart{Data: []byte("raw")}
	tests := []struct {
		name string
		err  error
		in   keel.Message
		want []string
	}{
		{"unnamed takes only unreadable files", apiErr(400),
			userMsg(text("a"), xlsx, pdf, png, csv, docx, text("b")),
			[]string{"a", placeholder("leads.xlsx"), "file:brief.pdf", "file:logo.png", "file:t.csv", placeholder("memo.docx"), "b"}},
		{"named pdf takes pdfs and unreadable files", unsupported("application/pdf"),
			userMsg(pdf, png, xlsx),
			[]string{placeholder("brief.pdf"), "file:logo.png", placeholder("leads.xlsx")}},
		{"named by field, not by text", &keel.UnsupportedFunctionalityError{Functionality: "this type of file", MediaType: "Application/PDF; v=1"},
			userMsg(pdf, png, csv),
			[]string{placeholder("brief.pdf"), "file:logo.png", "file:t.csv"}},
		{"field wins over text", &keel.UnsupportedFunctionalityError{Functionality: "media type: image/png", MediaType: "application/pdf"},
			userMsg(pdf, png),
			[]string{placeholder("brief.pdf"), "file:logo.png"}},
		{"answer naming a type takes it and unreadable files", namedAnswer(docxType),
			userMsg(docx, xlsx, pdf, csv),
			[]string{placeholder("memo.docx"), placeholder("leads.xlsx"), "file:brief.pdf", "file:t.csv"}},
		{"answer naming a readable type takes it too", namedAnswer("Text/CSV"),
			userMsg(csv, pdf, xlsx),
			[]string{placeholder("t.csv"), "file:brief.pdf", placeholder("leads.xlsx")}},
		{"named with parameters", &keel.UnsupportedFunctionalityError{Functionality: "media type: IMAGE/PNG"},
			userMsg(keel.FilePart{Data: []byte("x"), MediaType: "image/png; q=1", Filename: "a.png"}, csv),
			[]string{placeholder("a.png"), "file:t.csv"}},
		{"unnamed file shows its media type as sent", apiErr(400),
			userMsg(keel.FilePart{Data: []byte("x"), MediaType: "Application/Zip; v=2"}),
			[]string{placeholder("Application/Zip; v=2")}},
		{"file without name or type", apiErr(400), userMsg(bare), []string{placeholder("file")}},
		{"hostile name", apiErr(400),
			userMsg(keel.FilePart{Data: []byte("x"), MediaType: "application/zip", Filename: "\x1b[31mevil\x1b[0m\n]\r.zip\x00"}),
			[]string{placeholder("evil].zip")}},
		{"name of control characters only", apiErr(400),
			userMsg(keel.FilePart{Data: []byte("x"), MediaType: "application/zip", Filename: "\x00\x01\n"}),
			[]string{placeholder("unnamed file")}},
		{"long name cut", apiErr(400),
			userMsg(keel.FilePart{Data: []byte("x"), MediaType: "application/zip", Filename: strings.Repeat("é", 250)}),
			[]string{placeholder(strings.Repeat("é", 200))}},
	}
	h := processor.NewUnsupportedFileHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := fileRun(nil, nil, tt.in)
			refuse(t, h, run, tt.err, true)
			prompt := rewrite(t, h, run)
			if got := partTexts(prompt[0]); !equalStrings(got, tt.want) {
				t.Errorf("Got(%q) = %q; want %q", tt.name, got, tt.want)
			}
			if got := partTexts(run.Messages[0]); !equalStrings(got, partTexts(tt.in)) {
				t.Errorf("Got(stored %q) = %q; want unchanged %q", tt.name, got, partTexts(tt.in))
			}
		})
	}
}

func TestUnsupportedFileHandlerRolesAndNothingRecorded(t *testing.T) {
	h := processor.NewUnsupportedFileHandler()
	msgs := []keel.Message{
		keel.SystemText("be brief"),
		userMsg(xlsx),
		{Role: keel.RoleAssistant, Parts: []keel.Part{text("here"), xlsx}},
		{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "c1", Name: "t"}, xlsx}},
	}
	run := fileRun(nil, nil, msgs...)
	prompt := rewrite(t, h, run)
	for i, m := range prompt {
		if got, want := partTexts(m), partTexts(msgs[i]); !equalStrings(got, want) {
			t.Errorf("Got(nothing recorded, message %d) = %q; want %q", i, got, want)
		}
	}
	refuse(t, h, run, apiErr(400), true)
	prompt = rewrite(t, h, run)
	// The assistant's file stays; a tool's is handled as a user's.
	want := [][]string{{"be brief"}, {placeholder("leads.xlsx")}, {"here", "file:leads.xlsx"}, {"tool-result", placeholder("leads.xlsx")}}
	for i, m := range prompt {
		if got := partTexts(m); !equalStrings(got, want[i]) {
			t.Errorf("Got(message %d, %s) = %q; want %q", i, m.Role, got, want[i])
		}
	}
}

func TestUnsupportedFileHandlerURLsGetPlaceholders(t *testing.T) {
	sb := keeltest.NewSandbox("sb")
	h := processor.NewUnsupportedFileHandler()
	run := fileRun(sb, nil, userMsg(
		keel.FilePart{URL: "https://example.com/files/report.xlsx?sig=1", MediaType: xlsxType, Filename: "report.xlsx"},
		keel.FilePart{URL: "file-abc123", MediaType: xlsxType},
	))
	refuse(t, h, run, apiErr(502), true)
	got := partTexts(rewrite(t, h, run)[0])
	want := []string{placeholder("report.xlsx"), placeholder(xlsxType)}
	if !equalStrings(got, want) {
		t.Errorf("Got(url files) = %q; want %q", got, want)
	}
	if w := sb.Writes(); len(w) != 0 {
		t.Errorf("Got(writes) = %d; want none: the handler never downloads", len(w))
	}
	recs := run.Recoveries()
	if len(recs) != 1 || recs[0].Action != "placeholder" || len(recs[0].Files) != 2 {
		t.Errorf("Got(recoveries) = %+v; want one placeholder recovery of 2 files", recs)
	}
}

func TestUnsupportedFileHandlerUploads(t *testing.T) {
	big := make([]byte, workspace.MaxUploadSize+1)
	tests := []struct {
		name   string
		file   keel.FilePart
		want   string
		action string
		writes int
	}{
		{"bytes", xlsx, uploadNote("leads.xlsx", xlsxType, xlsxData, "xlsx"), "uploaded", 1},
		{"data URL", keel.FilePart{URL: keel.DataURL(xlsxType, xlsxData), MediaType: xlsxType + "; charset=binary", Filename: "Leads.XLSX"},
			uploadNote("Leads.XLSX", xlsxType, xlsxData, "xlsx"), "uploaded", 1},
		{"unnamed", keel.FilePart{Data: xlsxData, MediaType: xlsxType},
			uploadNote(xlsxType, xlsxType, xlsxData, "xlsx"), "uploaded", 1},
		{"too large", keel.FilePart{Data: big, MediaType: "application/zip", Filename: "big.zip"},
			"[File not uploaded]\nname: big.zip\nreason: File \"big.zip\" is 10485761 bytes, over the 10485760 byte limit.", "not-uploaded", 0},
		{"too large unnamed", keel.FilePart{Data: big, MediaType: "application/zip"},
			"[File not uploaded]\nname: application/zip\nreason: An unnamed file is 10485761 bytes, over the 10485760 byte limit.", "not-uploaded", 0},
		{"undecodable", keel.FilePart{URL: "data:application/zip;base64,!!!not base64!!!", MediaType: "application/zip", Filename: "a.zip"},
			"[File not uploaded]\nname: a.zip\nreason: File \"a.zip\" has inline data that cannot be decoded.", "not-uploaded", 0},
	}
	h := processor.NewUnsupportedFileHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := keeltest.NewSandbox("sb")
			var recs []processor.Recovery
			run := fileRun(sb, nil, userMsg(text("see"), tt.file))
			refuse(t, h, run, apiErr(400), true)
			prompt := rewrite(t, h, run)
			if got := partTexts(prompt[0]); !equalStrings(got, []string{"see", tt.want}) {
				t.Fatalf("Got(%q) = %q; want %q", tt.name, got, []string{"see", tt.want})
			}
			writes := sb.Writes()
			if len(writes) != tt.writes {
				t.Fatalf("Got(%q writes) = %d; want %d", tt.name, len(writes), tt.writes)
			}
			recs = run.Recoveries()
			if len(recs) != 1 || recs[0].Processor != "unsupported-file-handler" || recs[0].Action != tt.action || len(recs[0].Files) != 1 {
				t.Fatalf("Got(%q recoveries) = %+v; want one %q", tt.name, recs, tt.action)
			}
			if rf := recs[0].Files[0]; rf.Outcome != tt.action || tt.action == "not-uploaded" && !strings.HasSuffix(tt.want, "reason: "+rf.Reason) {
				t.Errorf("Got(%q recovered file) = %+v; want outcome %q and the note's reason", tt.name, rf, tt.action)
			}
			if tt.writes == 0 {
				return
			}
			path := fmt.Sprintf("uploads/thread-1/%x.xlsx", sha256.Sum256(xlsxData))
			if got := sb.Files()[path]; !bytes.Equal(got, xlsxData) {
				t.Errorf("Got(%s) = %q; want %q", path, got, xlsxData)
			}
			if rf := recs[0].Files[0]; rf.Path != "/home/user/"+path || rf.MediaType != xlsxType {
				t.Errorf("Got(recovered file) = %+v; want path /home/user/%s, type %s", rf, path, xlsxType)
			}
			if tt.file.Data != nil && &writes[0].Data[0] != &tt.file.Data[0] {
				t.Errorf("Got(written bytes) = a copy; want the part's own bytes")
			}
		})
	}
}

func TestUnsupportedFileHandlerPlaceholderWhenUploadFails(t *testing.T) {
	failing := keeltest.NewSandbox("full")
	failing.FailWrites(errors.New("disk full"))
	commandsOnly := struct{ workspace.Sandbox }{keeltest.NewSandbox("bare")}
	tests := []struct {
		name    string
		ws      *workspace.Workspace
		wantLog string
	}{
		{"no workspace", nil, "no sandbox"},
		{"workspace without sandbox", workspace.New(nil), "no sandbox"},
		{"resolver fails", workspace.NewResolved(workspace.ResolverFunc(func(context.Context, workspace.Scope) (workspace.Sandbox, error) {
			return nil, errors.New("quota exceeded")
		})), "quota exceeded"},
		{"disk full", workspace.New(failing), "disk full"},
		{"sandbox that cannot write", workspace.New(commandsOnly), "neither write files nor run commands"},
	}
	h := processor.NewUnsupportedFileHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			run := fileRun(nil, &logs, userMsg(xlsx, text("thanks")))
			run.Workspace = tt.ws
			refuse(t, h, run, unsupported(xlsxType), true)
			got := partTexts(rewrite(t, h, run)[0])
			if want := []string{placeholder("leads.xlsx"), "thanks"}; !equalStrings(got, want) {
				t.Errorf("Got(%q) = %q; want %q", tt.name, got, want)
			}
			if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, tt.wantLog) {
				t.Errorf("Got(%q log) = %q; want a warning with %q", tt.name, l, tt.wantLog)
			}
			if recs := run.Recoveries(); len(recs) != 1 || recs[0].Action != "placeholder" {
				t.Errorf("Got(%q recoveries) = %+v; want one placeholder", tt.name, recs)
			}
		})
	}
	if files := failing.Files(); len(files) != 0 {
		t.Errorf("Got(files after disk full) = %v; want none", files)
	}
}

func TestUnsupportedFileHandlerStoredName(t *testing.T) {
	h := processor.NewUnsupportedFileHandler()
	stored := keel.FilePart{Data: append([]byte(nil), xlsxData...), MediaType: xlsxType, Filename: "leads.xlsx"}
	run := fileRun(nil, nil, userMsg(stored), userMsg(text("again")))
	refuse(t, h, run, apiErr(400), true)
	req := &processor.LLMRequest{Run: run, Prompt: []keel.Message{
		userMsg(keel.FilePart{Data: xlsxData, MediaType: xlsxType}),
		userMsg(keel.FilePart{URL: "https://x.test/a", MediaType: xlsxType}),
	}}
	if err := h.RewriteLLMRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got, want := partTexts(req.Prompt[0]), []string{placeholder("leads.xlsx")}; !equalStrings(got, want) {
		t.Errorf("Got(same bytes, no name) = %q; want %q", got, want)
	}
	if got, want := partTexts(req.Prompt[1]), []string{placeholder(xlsxType)}; !equalStrings(got, want) {
		t.Errorf("Got(other content, no name) = %q; want %q", got, want)
	}
}

// TestUnsupportedFileHandlerOncePerRun checks that three calls of a run
// upload the file once, send the same note each time and report it once.
func TestUnsupportedFileHandlerOncePerRun(t *testing.T) {
	sb := keeltest.NewSandbox("sb")
	h := processor.NewUnsupportedFileHandler()
	var listened []processor.Recovery
	run := fileRun(sb, nil,
		userMsg(xlsx, keel.FilePart{URL: "https://x.test/b.xlsx", MediaType: xlsxType, Filename: "b.xlsx"}),
		keel.Message{Role: keel.RoleAssistant, Parts: []keel.Part{text("ok")}},
		userMsg(text("and the same file again"), keel.FilePart{Data: xlsxData, MediaType: xlsxType, Filename: "leads.xlsx"}))
	run = withListener(run, &listened)
	refuse(t, h, run, unsupported(xlsxType), true)
	note := uploadNote("leads.xlsx", xlsxType, xlsxData, "xlsx")
	want := [][]string{{note, placeholder("b.xlsx")}, {"ok"}, {"and the same file again", note}}
	for call := range 3 {
		prompt := rewrite(t, h, run)
		for i, m := range prompt {
			if got := partTexts(m); !equalStrings(got, want[i]) {
				t.Fatalf("Got(call %d, message %d) = %q; want %q", call, i, got, want[i])
			}
		}
	}
	if n := len(sb.Writes()); n != 1 {
		t.Errorf("Got(writes over 3 calls) = %d; want 1", n)
	}
	recs := run.Recoveries()
	if len(recs) != 2 || recs[0].Action != "uploaded" || len(recs[0].Files) != 1 || recs[1].Action != "placeholder" || len(recs[1].Files) != 1 {
		t.Fatalf("Got(recoveries) = %+v; want one uploaded and one placeholder, one file each", recs)
	}
	if recs[0].Files[0].Name != "leads.xlsx" || recs[1].Files[0].Name != "b.xlsx" {
		t.Errorf("Got(recovered names) = %q, %q; want leads.xlsx, b.xlsx", recs[0].Files[0].Name, recs[1].Files[0].Name)
	}
	if len(listened) != 2 {
		t.Errorf("Got(listener calls) = %d; want 2", len(listened))
	}
}

// withListener returns a copy of run's setup whose recoveries are also
// appended to out.
func withListener(run *processor.Run, out *[]processor.Recovery) *processor.Run {
	r := processor.NewRun(run.ID, func(rec processor.Recovery) { *out = append(*out, rec) })
	r.ThreadID, r.ResourceID, r.Messages, r.Workspace, r.Logger = run.ThreadID, run.ResourceID, run.Messages, run.Workspace, run.Logger
	return r
}

// TestUnsupportedFileHandlerConcurrentRuns runs one handler value in two
// runs at once: each keeps its own rejections, uploads and reports.
func TestUnsupportedFileHandlerConcurrentRuns(t *testing.T) {
	h := processor.NewUnsupportedFileHandler()
	sb := keeltest.NewSandbox("shared")
	results := make([][]string, 2)
	reports := make([]int, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			run := fileRun(sb, nil, userMsg(xlsx))
			run.ID, run.ThreadID = fmt.Sprint("run-", i), fmt.Sprint("thread-", i)
			if i == 0 {
				if d, _ := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: apiErr(400)}); !d.Retry {
					return
				}
			}
			for range 3 {
				req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(run.Messages)}
				if err := h.RewriteLLMRequest(context.Background(), req); err != nil {
					return
				}
				results[i] = partTexts(req.Prompt[0])
			}
			reports[i] = len(run.Recoveries())
		})
	}
	wg.Wait()
	want0 := []string{strings.Replace(uploadNote("leads.xlsx", xlsxType, xlsxData, "xlsx"), "thread-1", "thread-0", 1)}
	if !equalStrings(results[0], want0) || reports[0] != 1 {
		t.Errorf("Got(refused run) = %q, %d reports; want %q, 1 report", results[0], reports[0], want0)
	}
	if want1 := []string{"file:leads.xlsx"}; !equalStrings(results[1], want1) || reports[1] != 0 {
		t.Errorf("Got(other run) = %q, %d reports; want %q, 0 reports", results[1], reports[1], want1)
	}
}

func TestUnsupportedFileHandlerUploadDir(t *testing.T) {
	tests := []struct{ thread, resource, dir string }{
		{"thread-1", "user-1", "thread-1"},
		{"", "user 1/ä", "user_1_a"},
		{"", "", "shared"},
	}
	h := processor.NewUnsupportedFileHandler()
	for _, tt := range tests {
		sb := keeltest.NewSandbox("sb")
		run := fileRun(sb, nil, userMsg(xlsx))
		run.ThreadID, run.ResourceID = tt.thread, tt.resource
		refuse(t, h, run, apiErr(400), true)
		rewrite(t, h, run)
		path := fmt.Sprintf("uploads/%s/%x.xlsx", tt.dir, sha256.Sum256(xlsxData))
		if _, ok := sb.Files()[path]; !ok {
			t.Errorf("Got(files for %q, %q) = %v; want %s", tt.thread, tt.resource, keys(sb.Files()), path)
		}
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestUnsupportedFileHandlerID(t *testing.T) {
	h := processor.NewUnsupportedFileHandler()
	if h.ID() != "unsupported-file-handler" {
		t.Errorf("Got(ID) = %q; want %q", h.ID(), "unsupported-file-handler")
	}
	var _ processor.APIErrorHandler = h
	var _ processor.LLMRequestRewriter = h
	var _ processor.ResponseObserver = h
}

func ExampleUnsupportedFileHandler() {
	h := processor.NewUnsupportedFileHandler()
	run := processor.NewRun("run-1", nil)
	run.ThreadID = "thread-1"
	run.Workspace = workspace.New(keeltest.NewSandbox("sandbox"))
	run.Messages = []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Summarise these leads."},
		keel.FilePart{Data: []byte("hello"), MediaType: xlsxType, Filename: "leads.xlsx"},
	}}}

	// The provider refused the request; the handler asks for a retry...
	d, _ := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{
		Run: run, Err: &keel.APICallError{Provider: "google", StatusCode: 502},
	})
	fmt.Println("retry:", d.Retry)

	// ...and the next call's prompt has the file's sandbox path instead.
	req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(run.Messages)}
	_ = h.RewriteLLMRequest(context.Background(), req)
	fmt.Println(req.Prompt[0].Parts[1].(keel.TextPart).Text)
	// Output:
	// retry: true
	// [File uploaded to the sandbox]
	// path: /home/user/uploads/thread-1/2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824.xlsx
	// name: leads.xlsx
	// type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet
	// size: 5 bytes
}

// TestUnsupportedFileHandlerKeepsOutcomeForRun checks that a failed upload
// is not tried again at every call of the run: the prompt stays the same
// and a broken sandbox is written to once.
func TestUnsupportedFileHandlerKeepsOutcomeForRun(t *testing.T) {
	sb := keeltest.NewSandbox("sb")
	sb.FailWrites(errors.New("disk full"))
	h := processor.NewUnsupportedFileHandler()
	run := fileRun(sb, &bytes.Buffer{}, userMsg(xlsx))
	refuse(t, h, run, apiErr(400), true)
	for call := range 3 {
		if call == 1 {
			sb.FailWrites(nil)
		}
		if got, want := partTexts(rewrite(t, h, run)[0]), []string{placeholder("leads.xlsx")}; !equalStrings(got, want) {
			t.Fatalf("Got(call %d) = %q; want %q", call, got, want)
		}
	}
	if n := len(sb.Writes()); n != 1 {
		t.Errorf("Got(write attempts over 3 calls) = %d; want 1", n)
	}
	if files := sb.Files(); len(files) != 0 {
		t.Errorf("Got(files) = %v; want none", keys(files))
	}
}

// newDirSandbox returns a local sandbox over a new temporary directory,
// so that benchmarks measure real writes.
func newDirSandbox(tb testing.TB) *localsandbox.Sandbox {
	tb.Helper()
	sb, err := localsandbox.New(tb.TempDir(), localsandbox.Options{AllowUnisolated: true})
	if err != nil {
		tb.Fatal(err)
	}
	return sb
}

// BenchmarkUnsupportedFileRewrite measures the rewrite of a prompt holding
// a 10 MiB xlsx: the first call of a run, which writes the file to a
// directory; the first call of a run whose file is already there, with and
// without the digest carried by the file; and a later call of the same
// run, with the run's file or an equal copy of it. None may copy the
// file's bytes.
func BenchmarkUnsupportedFileRewrite(b *testing.B) {
	data := make([]byte, workspace.MaxUploadSize)
	for i := range data {
		data[i] = byte(i * 7)
	}
	msgs := []keel.Message{userMsg(text("summarise"), keel.FilePart{Data: data, MediaType: xlsxType, Filename: "leads.xlsx"})}
	sum := sha256.Sum256(data)
	carried := []keel.Message{userMsg(text("summarise"), keel.FilePart{Data: data, MediaType: xlsxType, Filename: "leads.xlsx", SHA256: fmt.Sprintf("%x", sum)})}
	copied := []keel.Message{userMsg(text("summarise"), keel.FilePart{Data: bytes.Clone(data), MediaType: xlsxType, Filename: "leads.xlsx"})}
	h := processor.NewUnsupportedFileHandler()
	newRun := func(b *testing.B, sb workspace.Sandbox, thread string) *processor.Run {
		run := processor.NewRun("bench", nil)
		run.ThreadID, run.Messages, run.Workspace = thread, msgs, workspace.New(sb)
		if d, _ := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: apiErr(400)}); !d.Retry {
			b.Fatal("no retry")
		}
		return run
	}
	call := func(b *testing.B, run *processor.Run, prompt []keel.Message) {
		req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(prompt)}
		if err := h.RewriteLLMRequest(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		if note := req.Prompt[0].Parts[1].(keel.TextPart).Text; !strings.HasPrefix(note, "[File uploaded to the sandbox]") {
			b.Fatalf("Got(note) = %q; want an upload note", note)
		}
	}
	cases := []struct {
		name string
		// next gives the run of an iteration: a new one, or always the same.
		next   func(b *testing.B, sb workspace.Sandbox, i int) *processor.Run
		prompt []keel.Message
	}{
		{"first-call-writes", func(b *testing.B, sb workspace.Sandbox, i int) *processor.Run {
			return newRun(b, sb, fmt.Sprint("thread-", i))
		}, msgs},
		{"first-call-exists", func(b *testing.B, sb workspace.Sandbox, _ int) *processor.Run {
			return newRun(b, sb, "thread-1")
		}, msgs},
		// The file carries its digest, as a stored file does: nothing hashes it.
		{"first-call-exists-digest-carried", func(b *testing.B, sb workspace.Sandbox, _ int) *processor.Run {
			return newRun(b, sb, "thread-1")
		}, carried},
		{"later-call", nil, msgs},
		// A copy of the run's file without a digest: the run's digest is
		// found by comparing the bytes, not by hashing them again.
		{"later-call-equal-copy", nil, copied},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			sb := newDirSandbox(b)
			first := newRun(b, sb, "thread-1")
			call(b, first, msgs) // the file is in the sandbox from now on
			next := c.next
			if next == nil {
				next = func(*testing.B, workspace.Sandbox, int) *processor.Run { return first }
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; b.Loop(); i++ {
				call(b, next(b, sb, i), c.prompt)
			}
		})
	}
}

// TestUnsupportedFileHandlerSameBytesTwoNames checks that a file sent
// twice under two names gets a note naming each, and is written once.
func TestUnsupportedFileHandlerSameBytesTwoNames(t *testing.T) {
	sb := keeltest.NewSandbox("sb")
	h := processor.NewUnsupportedFileHandler()
	copyOf := keel.FilePart{Data: xlsxData, MediaType: xlsxType, Filename: "copy.xlsx"}
	run := fileRun(sb, nil, userMsg(xlsx, copyOf))
	refuse(t, h, run, apiErr(400), true)
	want := []string{uploadNote("leads.xlsx", xlsxType, xlsxData, "xlsx"), uploadNote("copy.xlsx", xlsxType, xlsxData, "xlsx")}
	for call := range 2 {
		if got := partTexts(rewrite(t, h, run)[0]); !equalStrings(got, want) {
			t.Fatalf("Got(call %d) = %q; want %q", call, got, want)
		}
	}
	if n := len(sb.Writes()); n != 1 {
		t.Errorf("Got(writes) = %d; want 1", n)
	}
	if recs := run.Recoveries(); len(recs) != 1 || len(recs[0].Files) != 2 {
		t.Errorf("Got(recoveries) = %+v; want one uploaded recovery of 2 files", recs)
	}
}
