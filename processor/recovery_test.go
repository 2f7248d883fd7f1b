package processor_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
)

// gemini502 is how Gemini answers some file types: a 502 that says
// nothing about the file.
var gemini502 = &keel.APICallError{Provider: "google", StatusCode: 502, Code: "INTERNAL",
	Message: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"}

// TestUnsupportedFileHandlerRecoveryTellsWhy checks that each recovery
// says, for each file, what the model got instead and why the handler
// acted: the provider's status and message, or the SDK's refusal.
func TestUnsupportedFileHandlerRecoveryTellsWhy(t *testing.T) {
	big := keel.FilePart{Data: make([]byte, 11<<20), MediaType: "application/zip", Filename: "big.zip"}
	link := keel.FilePart{URL: "https://example.com/b.xlsx", MediaType: xlsxType, Filename: "b.xlsx"}
	tests := []struct {
		name      string
		err       error
		wantCause processor.RecoveryCause
	}{
		{"provider's answer", gemini502, processor.RecoveryCause{Kind: "api-error", Provider: "google", Status: 502, Code: "INTERNAL", Message: gemini502.Message}},
		{"SDK's refusal", unsupported(xlsxType), processor.RecoveryCause{Kind: "unsupported-functionality",
			Message: "'file part media type " + xlsxType + "' functionality not supported.", MediaType: xlsxType}},
	}
	h := processor.NewUnsupportedFileHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := fileRun(keeltest.NewSandbox("sb"), nil, userMsg(xlsx, big, link))
			refuse(t, h, run, tt.err, true)
			rewrite(t, h, run)
			recs := run.Recoveries()
			if len(recs) != 3 {
				t.Fatalf("Got(recoveries) = %+v; want uploaded, not-uploaded and placeholder", recs)
			}
			want := []struct {
				action string
				file   processor.RecoveredFile
			}{
				{"uploaded", processor.RecoveredFile{Name: "leads.xlsx", MediaType: xlsxType, Size: int64(len(xlsxData)),
					SHA256: fmt.Sprintf("%x", sha256.Sum256(xlsxData)), Outcome: "uploaded",
					Path: fmt.Sprintf("/home/user/uploads/thread-1/%x.xlsx", sha256.Sum256(xlsxData))}},
				{"not-uploaded", processor.RecoveredFile{Name: "big.zip", MediaType: "application/zip", Size: 11 << 20,
					SHA256: fmt.Sprintf("%x", sha256.Sum256(big.Data)), Outcome: "not-uploaded",
					Reason: `File "big.zip" is 11534336 bytes, over the 10485760 byte limit.`}},
				{"placeholder", processor.RecoveredFile{Name: "b.xlsx", MediaType: xlsxType, Outcome: "placeholder"}},
			}
			for i, w := range want {
				rec := recs[i]
				if rec.Processor != "unsupported-file-handler" || rec.Action != w.action || len(rec.Files) != 1 || rec.Files[0] != w.file {
					t.Errorf("Got(recovery %d) = %+v; want %s of %+v", i, rec, w.action, w.file)
				}
				if rec.Cause == nil || *rec.Cause != tt.wantCause {
					t.Errorf("Got(recovery %d cause) = %+v; want %+v", i, rec.Cause, tt.wantCause)
				}
			}
		})
	}
}

// TestRecoveryJSON pins the JSON names clients read: camelCase, and the
// fields that do not apply left out.
func TestRecoveryJSON(t *testing.T) {
	rec := processor.Recovery{
		Processor: "unsupported-file-handler", Action: "not-uploaded",
		Files: []processor.RecoveredFile{{Name: "big.zip", MediaType: "application/zip", Size: 11534336,
			SHA256: strings.Repeat("ab", 32), Outcome: "not-uploaded", Reason: "File \"big.zip\" is 11534336 bytes, over the 10485760 byte limit."}},
		Cause: &processor.RecoveryCause{Kind: "api-error", Provider: "google", Status: 502, Message: "An internal error has occurred."},
	}
	got, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"processor":"unsupported-file-handler","action":"not-uploaded","files":[{"name":"big.zip","mediaType":"application/zip",` +
		`"size":11534336,"sha256":"` + strings.Repeat("ab", 32) + `","outcome":"not-uploaded",` +
		`"reason":"File \"big.zip\" is 11534336 bytes, over the 10485760 byte limit."}],` +
		`"cause":{"kind":"api-error","provider":"google","status":502,"message":"An internal error has occurred."}}`
	if string(got) != want {
		t.Errorf("Got(JSON) = %s; want %s", got, want)
	}
	placeholder, _ := json.Marshal(processor.Recovery{Processor: "unsupported-file-handler", Action: "placeholder",
		Files: []processor.RecoveredFile{{Name: "b.xlsx", MediaType: xlsxType, Outcome: "placeholder"}}})
	if want := `{"processor":"unsupported-file-handler","action":"placeholder","files":[{"name":"b.xlsx","mediaType":"` + xlsxType + `","outcome":"placeholder"}]}`; string(placeholder) != want {
		t.Errorf("Got(JSON) = %s; want %s", placeholder, want)
	}
}

// TestFileUploadReportsHistoryFailures checks that a file of the history
// FileUpload could not upload is reported with the reason its note gave.
func TestFileUploadReportsHistoryFailures(t *testing.T) {
	ws := noSandboxAnywhere
	p, err := processor.NewFileUpload(processor.FileUploadOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	old := keel.FilePart{Data: []byte("old,data\n"), MediaType: "text/csv", Filename: "old.csv"}
	u := newUploadRun(ws, []keel.Message{userFiles("earlier", old)}, []keel.Message{keel.UserText("and now?")})
	var recs []processor.Recovery
	listening := processor.NewRun(u.run.ID, func(r processor.Recovery) { recs = append(recs, r) })
	listening.ThreadID, listening.Workspace, listening.Messages, listening.Logger = u.run.ThreadID, ws, u.run.Messages, u.run.Logger
	u.run = listening
	if err := u.processInput(p); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		prompt, err := u.rewrite(t, p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := prompt[0].Parts[1].(keel.TextPart).Text, "[File not uploaded]\nname: old.csv\nreason: No sandbox is available to this run."; got != want {
			t.Errorf("Got(history part) = %q; want %q", got, want)
		}
	}
	want := processor.RecoveredFile{Name: "old.csv", MediaType: "text/csv", Size: int64(len(old.Data)),
		SHA256: fmt.Sprintf("%x", sha256.Sum256(old.Data)), Outcome: "not-uploaded", Reason: "No sandbox is available to this run."}
	if len(recs) != 1 || recs[0].Processor != "file-upload" || recs[0].Action != "not-uploaded" || recs[0].Cause != nil ||
		len(recs[0].Files) != 1 || recs[0].Files[0] != want {
		t.Errorf("Got(recoveries over 2 calls) = %+v; want one not-uploaded of %+v", recs, want)
	}
}
