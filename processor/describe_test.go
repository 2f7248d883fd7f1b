package processor_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/processor"
)

// TestRecoveryDescribe checks the words of every outcome and every cause:
// what the model got in each file's place, and why, as each printer shows
// them.
func TestRecoveryDescribe(t *testing.T) {
	learned := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	api400 := &processor.RecoveryCause{Kind: processor.CauseAPIError, Provider: "google", Status: 400, Code: "INVALID_ARGUMENT",
		Message: "Unsupported MIME type: application/zip"}
	file := func(outcome string) processor.RecoveredFile {
		return processor.RecoveredFile{Name: "leads.xlsx", MediaType: xlsxType, Outcome: outcome}
	}
	with := func(f processor.RecoveredFile, edit func(*processor.RecoveredFile)) processor.RecoveredFile {
		edit(&f)
		return f
	}
	sheet := &processor.Conversion{Kind: "xlsx", As: "CSV", Description: `sheet "Leads", 1,204 rows × 9 columns`, Chars: 61234}
	tests := []struct {
		name      string
		rec       processor.Recovery
		wantBy    string
		wantLines []string
	}{
		{"uploaded", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeUploaded, Cause: api400,
			Files: []processor.RecoveredFile{with(file(processor.OutcomeUploaded), func(f *processor.RecoveredFile) { f.Path = "/home/user/uploads/t1/ab.xlsx" })}},
			"Unsupported File Handler",
			[]string{"leads.xlsx uploaded to the sandbox at /home/user/uploads/t1/ab.xlsx (unsupported-file-handler; google answered 400 INVALID_ARGUMENT: Unsupported MIME type: application/zip)"}},
		{"not uploaded", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeNotUploaded,
			Cause: &processor.RecoveryCause{Kind: processor.CauseAPIError, Provider: "openai"},
			Files: []processor.RecoveredFile{with(file(processor.OutcomeNotUploaded), func(f *processor.RecoveredFile) {
				f.Reason = `File "leads.xlsx" is 11534336 bytes, over the 10485760 byte limit.`
			}), file(processor.OutcomeNotUploaded)}},
			"Unsupported File Handler",
			[]string{`leads.xlsx not uploaded: File "leads.xlsx" is 11534336 bytes, over the 10485760 byte limit. (unsupported-file-handler; openai failed without an answer)`,
				"leads.xlsx not uploaded: no reason given (unsupported-file-handler; openai failed without an answer)"}},
		{"placeholder, by the processor's own rule", processor.Recovery{Processor: processor.FileUploadID, Action: processor.OutcomePlaceholder,
			Files: []processor.RecoveredFile{file(processor.OutcomePlaceholder)}},
			"File Upload",
			[]string{"leads.xlsx replaced by a placeholder (file-upload; by its own rule)"}},
		{"provider file, over the inline limit", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeProviderFile,
			Cause: &processor.RecoveryCause{Kind: processor.CauseInlineLimit, Provider: "google", Model: "gemini-2.5-flash", Message: "33333336 bytes as sent, over 20971520"},
			Files: []processor.RecoveredFile{{Name: "report.pdf", MediaType: "application/pdf", Outcome: processor.OutcomeProviderFile, Ref: "files/f2"}}},
			"Unsupported File Handler",
			[]string{"report.pdf sent by reference, from the provider's file store (files/f2) (unsupported-file-handler; too large to go inline to google/gemini-2.5-flash: 33333336 bytes as sent, over 20971520)"}},
		{"converted and uploaded, refused by the SDK", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeConverted,
			Cause: &processor.RecoveryCause{Kind: processor.CauseUnsupportedFunctionality, Message: "file parts of type xlsx are not supported"},
			Files: []processor.RecoveredFile{with(file(processor.OutcomeConverted), func(f *processor.RecoveredFile) { f.Conversion, f.Path = sheet, "/u/ab.xlsx" })}},
			"Unsupported File Handler",
			[]string{`leads.xlsx converted to text (CSV, sheet "Leads", 1,204 rows × 9 columns, 61,234 characters) and uploaded to the sandbox at /u/ab.xlsx (unsupported-file-handler; the provider's SDK refused it before sending: file parts of type xlsx are not supported)`}},
		{"converted, cut, not uploaded", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeConverted, Cause: api400,
			Files: []processor.RecoveredFile{with(file(processor.OutcomeConverted), func(f *processor.RecoveredFile) {
				f.Reason = "No sandbox."
				f.Conversion = &processor.Conversion{Kind: "docx", As: "Markdown", Chars: 100000, OmittedChars: 2500, OmittedUnits: 12, Unit: "paragraphs"}
			})}},
			"Unsupported File Handler",
			[]string{"leads.xlsx converted to text (Markdown, 100,000 characters, 2,500 (12 paragraphs) left out); not uploaded: No sandbox. (unsupported-file-handler; google answered 400 INVALID_ARGUMENT: Unsupported MIME type: application/zip)"}},
		{"converted, at least so much left out", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeConverted, Cause: api400,
			Files: []processor.RecoveredFile{with(file(processor.OutcomeConverted), func(f *processor.RecoveredFile) {
				f.Conversion = &processor.Conversion{Kind: "text", As: "text", Chars: 40, OmittedChars: 1234567, OmittedAtLeast: true}
			})}},
			"Unsupported File Handler",
			[]string{"leads.xlsx converted to text (text, 40 characters, at least 1,234,567 left out) (unsupported-file-handler; google answered 400 INVALID_ARGUMENT: Unsupported MIME type: application/zip)"}},
		{"converted, no conversion said", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeConverted, Cause: api400,
			Files: []processor.RecoveredFile{file(processor.OutcomeConverted)}},
			"Unsupported File Handler",
			[]string{"leads.xlsx converted to text (unsupported-file-handler; google answered 400 INVALID_ARGUMENT: Unsupported MIME type: application/zip)"}},
		{"image made readable", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeConverted, Cause: api400,
			Files: []processor.RecoveredFile{{Name: "IMG_0042.HEIC", MediaType: "image/heic", Outcome: processor.OutcomeConverted,
				Conversion: &processor.Conversion{Kind: "image", As: "JPEG", Description: "HEIC 4032 × 3024 → JPEG 2000 × 1500; turned upright"}}}},
			"Unsupported File Handler",
			[]string{"IMG_0042.HEIC converted to JPEG (HEIC 4032 × 3024 → JPEG 2000 × 1500; turned upright) (unsupported-file-handler; google answered 400 INVALID_ARGUMENT: Unsupported MIME type: application/zip)"}},
		{"image described", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeConverted, Cause: api400,
			Files: []processor.RecoveredFile{{Name: "logo.png", MediaType: "image/png", Outcome: processor.OutcomeConverted,
				Conversion: &processor.Conversion{Kind: "image", As: "description", Description: "Image: PNG, 640 × 480 pixels, RGB with alpha", Chars: 1212}}}},
			"Unsupported File Handler",
			[]string{"logo.png described in words (Image: PNG, 640 × 480 pixels, RGB with alpha, 1,212 characters) (unsupported-file-handler; google answered 400 INVALID_ARGUMENT: Unsupported MIME type: application/zip)"}},
		{"remembered refusal", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomePlaceholder,
			Cause: &processor.RecoveryCause{Kind: processor.CauseRememberedRefusal, Provider: "google", Model: "gemini-2.5-flash", Status: 502,
				Message: "Internal error encountered.", MediaType: "application/zip", LearnedAt: learned,
				ExpiresAt: learned.Add(24 * time.Hour).In(time.FixedZone("CET", 3600))},
			Files: []processor.RecoveredFile{{Name: "a.zip", Outcome: processor.OutcomePlaceholder}}},
			"Unsupported File Handler",
			[]string{"a.zip replaced by a placeholder (unsupported-file-handler; google/gemini-2.5-flash refused application/zip before, so keel did not send it again " +
				"(learned 2026-12-01T10:00:00Z, remembered until 2026-12-02T10:00:00Z); evidence: 502 Internal error encountered.)"}},
		{"remembered refusal by the SDK, nothing else known", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomePlaceholder,
			Cause: &processor.RecoveryCause{Kind: processor.CauseRememberedRefusal},
			Files: []processor.RecoveredFile{{Name: "a.zip", Outcome: processor.OutcomePlaceholder}}},
			"Unsupported File Handler",
			[]string{"a.zip replaced by a placeholder (unsupported-file-handler; the model refused this type before, so keel did not send it again)"}},
		{"values of a later keel", processor.Recovery{Processor: "link-download", Action: "not-downloaded",
			Cause: &processor.RecoveryCause{Kind: "quota", Status: 429, Message: "Too many."},
			Files: []processor.RecoveredFile{{Name: "https://example.com/a.pdf", Outcome: "not-downloaded", Reason: "The host is not allowed.", Path: "/x"}, {Name: "b"}}},
			"link-download",
			[]string{"https://example.com/a.pdf not-downloaded, in the sandbox at /x: The host is not allowed. (link-download; quota 429: Too many.)",
				"b handled (link-download; quota 429: Too many.)"}},
		{"about no file", processor.Recovery{Processor: "stream-error-retry-processor", Action: "retried"},
			"stream-error-retry-processor",
			[]string{"retried (stream-error-retry-processor; by its own rule)"}},
		{"words from outside on one line", processor.Recovery{Processor: processor.UnsupportedFileHandlerID, Action: processor.OutcomeConverted,
			Cause: &processor.RecoveryCause{Kind: processor.CauseAPIError, Status: 500, Message: "bad\n\x1b[31mthing\x1b[0m " + strings.Repeat("x", 300)},
			Files: []processor.RecoveredFile{{Name: "a.txt", Outcome: processor.OutcomeConverted,
				Conversion: &processor.Conversion{Kind: "text", As: "text", Description: "two\nlines", Chars: 5}}}},
			"Unsupported File Handler",
			[]string{"a.txt converted to text (text, two lines, 5 characters) (unsupported-file-handler; the provider answered 500: bad thing " + strings.Repeat("x", 149) + "…)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.rec.Describe()
			if d.By != tt.wantBy || d.Processor != tt.rec.Processor {
				t.Errorf("Describe() by %q (%q); want %q (%q)", d.By, d.Processor, tt.wantBy, tt.rec.Processor)
			}
			if got := d.Lines(); !slices.Equal(got, tt.wantLines) {
				t.Errorf("Describe().Lines() =\n%q\nwant\n%q", got, tt.wantLines)
			}
			for i, f := range d.Files {
				if line := d.Lines()[i]; !strings.Contains(line, f.Got) || !strings.Contains(line, d.Why) {
					t.Errorf("Describe() file %d got %q, why %q; want both in its line %q", i, f.Got, d.Why, line)
				}
			}
		})
	}
}

// TestRecoveryCauseKind checks the cause's label: its kind, "none" for a
// processor's own rule.
func TestRecoveryCauseKind(t *testing.T) {
	for _, tt := range []struct {
		cause *processor.RecoveryCause
		want  string
	}{
		{nil, processor.CauseNone},
		{&processor.RecoveryCause{Kind: processor.CauseAPIError}, "api-error"},
		{&processor.RecoveryCause{Kind: processor.CauseRememberedRefusal}, "remembered-refusal"},
	} {
		if got := (processor.Recovery{Cause: tt.cause}).CauseKind(); got != tt.want {
			t.Errorf("CauseKind(%+v) = %q; want %q", tt.cause, got, tt.want)
		}
	}
}
