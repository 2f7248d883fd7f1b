package processor_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/workspace"
)

// countingConverter counts the conversions it is asked for.
type countingConverter struct {
	next  processor.FileConverter
	calls atomic.Int64
}

func (c *countingConverter) Convert(ctx context.Context, in convert.Input) (*convert.Result, error) {
	c.calls.Add(1)
	return c.next.Convert(ctx, in)
}

// leadsBook is a real workbook of three rows.
func leadsBook(t testing.TB) []byte {
	return officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}, {"Grace", "Paris"}})
}

const leadsText = "[Text of leads.xlsx — sheet \"Leads\", 3 rows × 2 columns, as CSV]\n" +
	"# Sheet \"Leads\": 3 rows × 2 columns, cells A1:B3\nName,City\nAda,Berlin\nGrace,Paris"

func TestUnsupportedFileHandlerConverts(t *testing.T) {
	book := leadsBook(t)
	file := keel.FilePart{Data: book, MediaType: xlsxType, Filename: "leads.xlsx"}
	unknown := keel.FilePart{Data: []byte("\x00\x01binary"), MediaType: "application/x-thing", Filename: "a.thing"}
	fake := keel.FilePart{Data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), MediaType: xlsxType, Filename: "fake.xlsx"}
	link := keel.FilePart{URL: "https://example.com/leads.xlsx", MediaType: xlsxType, Filename: "link.xlsx"}
	json := keel.FilePart{Data: []byte(`{"a": 1}`), MediaType: "application/json", Filename: "a.json"}
	bigJSON := keel.FilePart{Data: []byte(`["` + strings.Repeat("x", workspace.MaxUploadSize) + `"]`), MediaType: "application/json", Filename: "big.json"}
	tests := []struct {
		name    string
		sandbox bool
		file    keel.FilePart
		want    []string
		outcome string
		warns   string // a warning the log must hold, "" for none
	}{
		{"with a sandbox: the note, unchanged, then the text", true, file,
			[]string{uploadNote("leads.xlsx", xlsxType, book, "xlsx"), leadsText}, "converted", ""},
		{"without a sandbox: the text alone", false, file, []string{leadsText}, "converted", ""},
		{"no converter knows it: the note", true, unknown,
			[]string{uploadNote("a.thing", "application/x-thing", unknown.Data, "thing")}, "uploaded", ""},
		{"no converter knows it, no sandbox: the placeholder", false, unknown, []string{placeholder("a.thing")}, "placeholder", "no sandbox"},
		{"conversion fails: the note", true, fake,
			[]string{uploadNote("fake.xlsx", xlsxType, fake.Data, "xlsx")}, "uploaded", "could not be converted"},
		{"conversion fails, no sandbox: the placeholder", false, fake, []string{placeholder("fake.xlsx")}, "placeholder", "could not be converted"},
		{"a link is never downloaded", true, link, []string{placeholder("link.xlsx")}, "placeholder", ""},
		{"text under a non-text type", false, json, []string{"[Text of a.json — JSON, 1 line, as text]\n{\"a\": 1}"}, "converted", ""},
		{"too large for the sandbox: the reason, then the text", true, bigJSON, nil, "converted", ""},
	}
	h := processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Converters: convert.Default()})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sb *keeltest.Sandbox
			if tt.sandbox {
				sb = keeltest.NewSandbox("sb")
			}
			var logs bytes.Buffer
			run := fileRun(nilIfNone(sb), &logs, userMsg(text("see"), tt.file, text("thanks")))
			refuse(t, h, run, gemini502, true)
			got := partTexts(rewrite(t, h, run)[0])
			if tt.want != nil {
				want := append(append([]string{"see"}, tt.want...), "thanks")
				if !equalStrings(got, want) {
					t.Fatalf("Got(%s) = %q; want %q", tt.name, got, want)
				}
			} else if len(got) != 4 || !strings.HasPrefix(got[1], "[File not uploaded]\nname: big.json\nreason: File \"big.json\" is 10485764 bytes") ||
				!strings.HasPrefix(got[2], "[Text of big.json — JSON, 1 line, as text]\n") ||
				!strings.HasSuffix(got[2], "\n[The text stops here: 10385764 more characters (1 line) were left out.]") {
				t.Fatalf("Got(%s) = %.300q; want the reason, then the text cut without a path", tt.name, got)
			}
			recs := run.Recoveries()
			if len(recs) != 1 || recs[0].Action != tt.outcome || len(recs[0].Files) != 1 || recs[0].Files[0].Outcome != tt.outcome {
				t.Fatalf("Got(recoveries) = %+v; want one %q", recs, tt.outcome)
			}
			rf := recs[0].Files[0]
			if (rf.Conversion != nil) != (tt.outcome == "converted") {
				t.Errorf("Got(conversion) = %+v; want one only when converted", rf.Conversion)
			}
			if tt.sandbox && tt.file.Filename == "leads.xlsx" && rf.Path != fmt.Sprintf("/home/user/uploads/thread-1/%x.xlsx", sha256.Sum256(book)) {
				t.Errorf("Got(path) = %q; want the upload's path beside the conversion", rf.Path)
			}
			l := logs.String()
			if tt.warns == "" && strings.Contains(l, "level=WARN") || tt.warns != "" && !strings.Contains(l, tt.warns) {
				t.Errorf("Got(log) = %q; want warning %q", l, tt.warns)
			}
		})
	}
}

// nilIfNone gives fileRun a nil interface for no sandbox.
func nilIfNone(sb *keeltest.Sandbox) workspace.Sandbox {
	if sb == nil {
		return nil
	}
	return sb
}

// TestUnsupportedFileHandlerConversionReport checks what a recovery says
// of a converted file: the converter's facts and the text's size.
func TestUnsupportedFileHandlerConversionReport(t *testing.T) {
	h := processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Converters: convert.Default()})
	run := fileRun(nil, nil, userMsg(keel.FilePart{Data: leadsBook(t), MediaType: xlsxType, Filename: "leads.xlsx"}))
	refuse(t, h, run, gemini502, true)
	rewrite(t, h, run)
	recs := run.Recoveries()
	if len(recs) != 1 || len(recs[0].Files) != 1 {
		t.Fatalf("Got(recoveries) = %+v; want one file", recs)
	}
	body := "# Sheet \"Leads\": 3 rows × 2 columns, cells A1:B3\nName,City\nAda,Berlin\nGrace,Paris\n"
	want := processor.Conversion{Kind: "xlsx", As: "CSV", Description: `sheet "Leads", 3 rows × 2 columns`, Chars: len([]rune(body))}
	if got := recs[0].Files[0].Conversion; got == nil || *got != want {
		t.Errorf("Got(conversion) = %+v; want %+v", got, want)
	}
	if recs[0].Cause == nil || recs[0].Cause.Status != 502 {
		t.Errorf("Got(cause) = %+v; want the 502", recs[0].Cause)
	}
}

// TestUnsupportedFileHandlerConversionCap checks the line that ends a cut
// text: how much was left out and, when the file was uploaded, where the
// whole file is.
func TestUnsupportedFileHandlerConversionCap(t *testing.T) {
	rows := [][]any{{"Name", "City"}}
	for i := range 50 {
		rows = append(rows, []any{fmt.Sprint("person-", i), "Berlin"})
	}
	book := officetest.Workbook(t, "Leads", rows)
	reg := convert.Default().WithLimits(convert.Limits{MaxChars: 120})
	h := processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Converters: reg})
	for _, sandbox := range []bool{true, false} {
		var sb workspace.Sandbox
		if sandbox {
			sb = keeltest.NewSandbox("sb")
		}
		run := fileRun(sb, nil, userMsg(keel.FilePart{Data: book, MediaType: xlsxType, Filename: "leads.xlsx"}))
		refuse(t, h, run, gemini502, true)
		parts := partTexts(rewrite(t, h, run)[0])
		last := parts[len(parts)-1]
		lines := strings.Split(last, "\n")
		cut := lines[len(lines)-1]
		conv := run.Recoveries()[0].Files[0].Conversion
		want := fmt.Sprintf("[The text stops here: %d more characters (%d rows) were left out.", conv.OmittedChars, conv.OmittedUnits)
		if sandbox {
			want += fmt.Sprintf(" The whole file is at /home/user/uploads/thread-1/%x.xlsx in the sandbox.", sha256.Sum256(book))
		}
		want += "]"
		if cut != want || conv.OmittedChars == 0 || conv.OmittedUnits == 0 || conv.Unit != "rows" {
			t.Errorf("Got(cut line, sandbox %v) = %q, %+v; want %q", sandbox, cut, conv, want)
		}
		// Cut on a row: every line before the cut is a whole row.
		for _, l := range lines[3 : len(lines)-1] {
			if !strings.HasPrefix(l, "person-") || !strings.HasSuffix(l, ",Berlin") {
				t.Errorf("Got(row %q) = a part of a row; want whole rows", l)
			}
		}
		if n := len([]rune(strings.Join(lines[1:len(lines)-1], "\n"))); n > 120 {
			t.Errorf("Got(text) = %d characters; want at most the cap, 120", n)
		}
	}
}

// TestUnsupportedFileHandlerConvertsOncePerRun checks that a file is
// converted once however many calls the run makes and however many names
// it comes under, and that the digest the file carries is used.
func TestUnsupportedFileHandlerConvertsOncePerRun(t *testing.T) {
	book := leadsBook(t)
	conv := &countingConverter{next: convert.Default()}
	h := processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Converters: conv})
	sum := fmt.Sprintf("%x", sha256.Sum256(book))
	run := fileRun(keeltest.NewSandbox("sb"), nil,
		userMsg(keel.FilePart{Data: book, MediaType: xlsxType, Filename: "leads.xlsx", SHA256: sum}),
		userMsg(keel.FilePart{Data: bytes.Clone(book), MediaType: xlsxType, Filename: "copy.xlsx"}))
	refuse(t, h, run, gemini502, true)
	for range 3 {
		prompt := rewrite(t, h, run)
		for i, name := range []string{"leads.xlsx", "copy.xlsx"} {
			if got := partTexts(prompt[i]); len(got) != 2 || !strings.HasPrefix(got[1], "[Text of "+name+" — ") {
				t.Fatalf("Got(prompt %d) = %q; want the note and the text of %s", i, got, name)
			}
		}
	}
	if n := conv.calls.Load(); n != 1 {
		t.Errorf("Got(conversions over 3 calls, 2 names) = %d; want 1", n)
	}
}

// failingConverter fails every conversion with err.
type failingConverter struct{ err error }

func (c failingConverter) Convert(context.Context, convert.Input) (*convert.Result, error) {
	return nil, c.err
}

// TestUnsupportedFileHandlerConverterCancelled checks that a conversion
// cut short by the run's end leaves no trace: no warning, and no failure
// remembered for a later call.
func TestUnsupportedFileHandlerConverterCancelled(t *testing.T) {
	var logs bytes.Buffer
	h := processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Converters: failingConverter{context.Canceled}})
	run := fileRun(nil, &logs, userMsg(xlsx))
	refuse(t, h, run, gemini502, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(run.Messages)}
	if err := h.RewriteLLMRequest(ctx, req); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "could not be converted") {
		t.Errorf("Got(log) = %q; want no conversion warning for a cancelled run", logs.String())
	}
}

func ExampleNewUnsupportedFileHandlerWith() {
	h := processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Converters: convert.Default()})
	run := processor.NewRun("run-1", nil)
	run.Messages = []keel.Message{keel.UserText("Summarise this.")}
	run.Messages[0].Parts = append(run.Messages[0].Parts, keel.FilePart{
		Data: []byte(`{"leads": 1204}`), MediaType: "application/json", Filename: "leads.json"})

	// The provider refused the request, which held a file it may not read.
	d, _ := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{
		Run: run, Err: &keel.APICallError{Provider: "google", StatusCode: 502},
	})
	fmt.Println("retry:", d.Retry)

	// No sandbox here: the next call gets the file's text in its place.
	req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(run.Messages)}
	_ = h.RewriteLLMRequest(context.Background(), req)
	fmt.Println(req.Prompt[0].Parts[1].(keel.TextPart).Text)
	// Output:
	// retry: true
	// [Text of leads.json — JSON, 1 line, as text]
	// {"leads": 1204}
}
