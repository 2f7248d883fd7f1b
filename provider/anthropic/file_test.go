package anthropic_test

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

func TestFileEncodings(t *testing.T) {
	img := []byte("\xff\xd8\xff\xe0 jpeg bytes \xfe\xff")
	urlSafe := "data:image/gif;base64," + base64.RawURLEncoding.EncodeToString(img)
	tests := []struct {
		name string
		part keel.FilePart
		want wireBlock
	}{
		{"jpeg bytes", keel.FilePart{Data: img, MediaType: "image/jpeg"},
			wireBlock{Type: "image", Source: &wireSource{Type: "base64", MediaType: "image/jpeg", Data: base64.StdEncoding.EncodeToString(img)}}},
		{"webp with parameters", keel.FilePart{Data: img, MediaType: "Image/WEBP; q=1"},
			wireBlock{Type: "image", Source: &wireSource{Type: "base64", MediaType: "image/webp", Data: base64.StdEncoding.EncodeToString(img)}}},
		{"gif from url-safe data URL", keel.FilePart{URL: urlSafe},
			wireBlock{Type: "image", Source: &wireSource{Type: "base64", MediaType: "image/gif", Data: base64.StdEncoding.EncodeToString(img)}}},
		{"png data URL passed on", keel.FilePart{URL: keel.DataURL("image/png", img), MediaType: "image/png"},
			wireBlock{Type: "image", Source: &wireSource{Type: "base64", MediaType: "image/png", Data: base64.StdEncoding.EncodeToString(img)}}},
		{"image URL", keel.FilePart{URL: "https://example.com/a.png", MediaType: "image/png"},
			wireBlock{Type: "image", Source: &wireSource{Type: "url", URL: "https://example.com/a.png"}}},
		{"image file ID", keel.FilePart{URL: "file_011CNha8iCJcU1wXNR6q4V8w", MediaType: "image/png"},
			wireBlock{Type: "image", Source: &wireSource{Type: "file", FileID: "file_011CNha8iCJcU1wXNR6q4V8w"}}},
		{"pdf bytes", keel.FilePart{Data: []byte("%PDF-1.7"), MediaType: "application/pdf", Filename: "a.pdf"},
			wireBlock{Type: "document", Title: "a.pdf", Source: &wireSource{Type: "base64", MediaType: "application/pdf", Data: base64.StdEncoding.EncodeToString([]byte("%PDF-1.7"))}}},
		{"pdf URL", keel.FilePart{URL: "https://example.com/a.pdf", MediaType: "application/pdf"},
			wireBlock{Type: "document", Source: &wireSource{Type: "url", URL: "https://example.com/a.pdf"}}},
		{"pdf file ID", keel.FilePart{URL: "file_011abc", MediaType: "application/pdf", Filename: "b.pdf"},
			wireBlock{Type: "document", Title: "b.pdf", Source: &wireSource{Type: "file", FileID: "file_011abc"}}},
		{"text", keel.FilePart{Data: []byte("line 1\nline 2"), MediaType: "text/plain; charset=utf-8", Filename: "n.txt"},
			wireBlock{Type: "document", Title: "n.txt", Source: &wireSource{Type: "text", MediaType: "text/plain", Data: "line 1\nline 2"}}},
		{"text data URL", keel.FilePart{URL: "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("hello"))},
			wireBlock{Type: "document", Source: &wireSource{Type: "text", MediaType: "text/plain", Data: "hello"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := send(t, &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{tc.part}}}})
			if len(got.Messages) != 1 || len(got.Messages[0].Content) != 1 {
				t.Fatalf("Got(messages) = %+v; want one block", got.Messages)
			}
			b := got.Messages[0].Content[0]
			if b.Type != tc.want.Type || b.Title != tc.want.Title || b.Source == nil || *b.Source != *tc.want.Source {
				t.Errorf("Got(block) = %+v %+v; want %+v %+v", b, b.Source, tc.want, tc.want.Source)
			}
		})
	}
}

func TestFileRefusals(t *testing.T) {
	tests := []struct {
		name string
		msg  keel.Message
		want string
	}{
		{"xlsx", keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: []byte("PK"), MediaType: providertest.XLSX}}}, "media type: " + providertest.XLSX},
		{"csv", keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: []byte("a,b"), MediaType: "text/csv; charset=utf-8"}}}, "media type: text/csv"},
		{"svg", keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: []byte("<svg/>"), MediaType: "image/svg+xml"}}}, "media type: image/svg+xml"},
		{"docx by URL", keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{URL: "https://example.com/a.docx", MediaType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}}}, "media type: application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"no media type", keel.Message{Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{Data: []byte("?")}}}, "media type: application/octet-stream"},
		{"in a tool message", keel.Message{Role: keel.RoleTool, Parts: []keel.Part{keel.FilePart{Data: []byte("x"), MediaType: "application/zip"}}}, "media type: application/zip"},
		{"from the assistant", keel.Message{Role: keel.RoleAssistant, Parts: []keel.Part{keel.FilePart{Data: []byte("%PDF"), MediaType: "application/pdf"}}}, "file parts in assistant messages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t)
			m := newModel(t, s.URL())
			req := &keel.Request{Messages: []keel.Message{keel.UserText("look"), tc.msg}}
			_, gerr := m.Generate(context.Background(), req)
			serr := providertest.Collect(t, m.Stream(context.Background(), req)).Err
			for name, err := range map[string]error{"generate": gerr, "stream": serr} {
				var ufe *keel.UnsupportedFunctionalityError
				if !errors.As(err, &ufe) || ufe.Functionality != tc.want {
					t.Errorf("Got(%s error) = %v; want the refusal %q", name, err, tc.want)
				}
			}
			if n := len(s.Requests()); n != 0 {
				t.Errorf("Got(requests) = %d; want 0: a refusal sends nothing", n)
			}
		})
	}
}

func TestFileUndecodableDataURL(t *testing.T) {
	s := providertest.NewServer(t)
	req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.FilePart{URL: "data:application/pdf;base64,%%%not-base64", MediaType: "application/pdf"},
	}}}}
	_, err := newModel(t, s.URL()).Generate(context.Background(), req)
	if !errors.Is(err, keel.ErrUndecodableData) {
		t.Errorf("Got(error) = %v; want keel.ErrUndecodableData", err)
	}
	if n := len(s.Requests()); n != 0 {
		t.Errorf("Got(requests) = %d; want 0", n)
	}
}

// TestFileLargeContent checks files whose base64 is streamed into the
// body in several chunks arrive whole, given as bytes or as a data: URL,
// several in one request.
func TestFileLargeContent(t *testing.T) {
	const chunk = 48 << 10
	for _, size := range []int{0, 1, 2, chunk - 1, chunk, chunk + 1, 3*chunk + 2} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i*7 + size)
		}
		parts := []keel.Part{
			keel.FilePart{Data: data, MediaType: "application/pdf"},
			keel.TextPart{Text: "between"},
			keel.FilePart{URL: keel.DataURL("image/png", data), MediaType: "image/png"},
		}
		s := providertest.NewServer(t, providertest.Reply{Body: textBody("ok")})
		m := newModel(t, s.URL())
		req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: parts}}}
		if _, err := m.Generate(context.Background(), req); err != nil {
			t.Fatalf("Got(Generate %d bytes) = %v; want no error", size, err)
		}
		if c := providertest.Collect(t, m.Stream(context.Background(), req)); c.Err != nil {
			t.Fatalf("Got(Stream %d bytes) = %v; want no error", size, c.Err)
		}
		for _, r := range s.Requests() {
			files := sentFiles(t, r.Body)
			if len(files) != 2 || string(files[0].Data) != string(data) || string(files[1].Data) != string(data) {
				t.Errorf("Got(%d-byte files) = %d files; want both with the original bytes", size, len(files))
			}
			if got := sentText(t, r.Body); len(got) != 1 || got[0] != "between" {
				t.Errorf("Got(text) = %q; want [between]", got)
			}
		}
	}
}
