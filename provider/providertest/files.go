package providertest

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/keel-go/keel"
)

// Small but well-formed starts of the files the suite sends.
var (
	pdfBytes  = []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	pngBytes  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	textBytes = []byte("name,email\nAda,ada@example.com\n")
	xlsxBytes = []byte("PK\x03\x04\x14\x00\x06\x00\x08\x00leads-sheet")
	wavBytes  = []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00")
)

// XLSX is the media type of a spreadsheet, the file type the providers
// refuse most often.
const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

type fileCase struct {
	name string
	part keel.FilePart
	data []byte
}

func fileCases() []fileCase {
	return []fileCase{
		{"pdf", keel.FilePart{Data: pdfBytes, MediaType: "application/pdf", Filename: "report.pdf"}, pdfBytes},
		{"pdf-data-url", keel.FilePart{URL: keel.DataURL("application/pdf", pdfBytes), MediaType: "application/pdf", Filename: "report.pdf"}, pdfBytes},
		{"png", keel.FilePart{Data: pngBytes, MediaType: "image/png", Filename: "dot.png"}, pngBytes},
		{"text", keel.FilePart{Data: textBytes, MediaType: "text/plain", Filename: "notes.txt"}, textBytes},
		{"xlsx", keel.FilePart{Data: xlsxBytes, MediaType: XLSX, Filename: "leads.xlsx"}, xlsxBytes},
		{"wav", keel.FilePart{Data: wavBytes, MediaType: "audio/wav", Filename: "hello.wav"}, wavBytes},
		// A refusal names the type as the part gave it, parameters and all.
		{"csv-with-parameters", keel.FilePart{Data: textBytes, MediaType: "text/csv; charset=utf-8", Filename: "leads.csv"}, textBytes},
		// Bytes made from base64, as the server makes them.
		{"pdf-from-base64", fromBase64(pdfBytes, "application/pdf", "report.pdf"), pdfBytes},
		{"png-from-base64", fromBase64(pngBytes, "image/png", "dot.png"), pngBytes},
	}
}

// fromBase64 returns a part made by keel.FileFromBase64 from data's base64.
func fromBase64(data []byte, mediaType, filename string) keel.FilePart {
	f, err := keel.FileFromBase64(base64.StdEncoding.EncodeToString(data), mediaType, filename)
	if err != nil {
		panic(err)
	}
	return f
}

// testFiles sends one file of each kind with a text part: a type the
// adapter refuses never reaches the server, any other arrives intact.
func testFiles(t *testing.T, h Harness) {
	for _, tc := range fileCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, h.Text("read it"), h.StreamText("read it"))
			m := h.NewModel(t, s.URL(), Timeouts{})
			msgs := []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Read this"}, tc.part}}}
			mt := keel.NormalizeMediaType(tc.part.MediaType)
			refusal := h.RefusesUpFront[mt]
			for _, stream := range []bool{false, true} {
				var err error
				if stream {
					err = Collect(t, m.Stream(context.Background(), &keel.Request{Messages: msgs})).Err
				} else {
					_, err = m.Generate(context.Background(), &keel.Request{Messages: msgs})
				}
				if refusal != "" {
					var ufe *keel.UnsupportedFunctionalityError
					if !errors.As(err, &ufe) || ufe.Functionality != refusal {
						t.Fatalf("Got(stream=%v error) = %v; want UnsupportedFunctionalityError %q", stream, err, refusal)
					}
					if ufe.MediaType != tc.part.MediaType {
						t.Errorf("Got(stream=%v refusal MediaType) = %q; want %q, as the part gave it", stream, ufe.MediaType, tc.part.MediaType)
					}
					if n := len(s.Requests()); n != 0 {
						t.Errorf("Got(requests after refusal) = %d; want 0", n)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Got(stream=%v error) = %v; want none", stream, err)
				}
			}
			if refusal != "" {
				return
			}
			reqs := s.Requests()
			if len(reqs) != 2 {
				t.Fatalf("Got(requests) = %d; want 2", len(reqs))
			}
			for _, r := range reqs {
				files := h.SentFiles(t, r.Body)
				if len(files) != 1 {
					t.Fatalf("Got(sent files) = %+v; want 1", files)
				}
				f := files[0]
				if f.MediaType != mt || !bytes.Equal(f.Data, tc.data) {
					t.Errorf("Got(sent file) = %q %q %q; want %q with the original bytes", f.MediaType, f.Encoding, f.Data, mt)
				}
				if text := h.SentText(t, r.Body); len(text) == 0 || text[0] != "Read this" {
					t.Errorf("Got(sent text) = %q; want [Read this]", text)
				}
			}
		})
	}
	t.Run("image-url", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, h.Text("seen"))
		m := h.NewModel(t, s.URL(), Timeouts{})
		const u = "https://example.com/cat.png"
		msgs := []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Look"}, keel.FilePart{URL: u, MediaType: "image/png"}}}}
		if _, err := m.Generate(context.Background(), &keel.Request{Messages: msgs}); err != nil {
			t.Fatalf("Got(Generate) = %v; want no error", err)
		}
		r := checkOneRequest(t, s)
		files := h.SentFiles(t, r.Body)
		if len(files) != 1 || files[0].URL != u || files[0].Data != nil {
			t.Errorf("Got(sent files) = %+v; want one by URL %q", files, u)
		}
	})
}

// testToolFiles sends a tool's result followed by the image the tool
// returned, in the tool message: the image reaches the model intact
// (Chat Completions and the Responses API take text only in a tool's
// output, so there it follows as the user's).
func testToolFiles(t *testing.T, h Harness) {
	png := []byte("\x89PNG\r\n\x1a\nchart")
	s := NewServer(t, h.Text("a chart"))
	m := h.NewModel(t, s.URL(), Timeouts{})
	msgs := []keel.Message{
		{Role: keel.RoleUser, Parts: []keel.Part{keel.TextPart{Text: "Draw it"}}},
		{Role: keel.RoleAssistant, Parts: []keel.Part{keel.ToolCallPart{ID: "call_1", Name: "draw", Input: []byte(`{}`)}}},
		{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: "call_1", Name: "draw", Output: []byte(`"drawn"`)},
			keel.FilePart{Data: png, MediaType: "image/png", Filename: "chart.png"}}},
	}
	if _, err := m.Generate(context.Background(), &keel.Request{Messages: msgs}); err != nil {
		t.Fatalf("Got(Generate) = %v; want no error", err)
	}
	r := checkOneRequest(t, s)
	files := h.SentFiles(t, r.Body)
	if len(files) != 1 || files[0].MediaType != "image/png" || !bytes.Equal(files[0].Data, png) {
		t.Errorf("Got(sent files) = %+v; want the tool's PNG with its bytes", files)
	}
}
