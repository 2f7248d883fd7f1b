package upload_test

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/internal/upload"
)

func TestMultipart(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 1000)
	tests := []struct{ name, filename, want string }{
		{"plain", "report.pdf", "report.pdf"},
		{"quotes and backslashes", `a"b\c.pdf`, `a"b\c.pdf`},
		// A CR or LF would end the header and start one of the sender's.
		{"a header smuggled in the name", "x.pdf\r\nX-Evil: 1", "x.pdf__X-Evil: 1"},
		{"unicode", "résumé.pdf", "résumé.pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := upload.NewMultipart([]upload.Field{{Name: "purpose", Value: "user_data"}}, "file", tt.filename, "application/pdf",
				func() io.Reader { return bytes.NewReader(data) }, int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // a second reader reads the same body
				body, _ := io.ReadAll(m.Reader())
				if int64(len(body)) != m.Len() {
					t.Fatalf("Got(len(body)) = %d; want Len() = %d", len(body), m.Len())
				}
				_, params, err := mime.ParseMediaType(m.ContentType())
				if err != nil {
					t.Fatal(err)
				}
				mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
				p, err := mr.NextPart()
				if err != nil || p.FormName() != "purpose" {
					t.Fatalf("Got(first part) = %v, %v; want purpose", p, err)
				}
				if v, _ := io.ReadAll(p); string(v) != "user_data" {
					t.Errorf("Got(purpose) = %q; want user_data", v)
				}
				p, err = mr.NextPart()
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(p)
				if p.FormName() != "file" || p.FileName() != tt.want || p.Header.Get("Content-Type") != "application/pdf" || !bytes.Equal(got, data) ||
					p.Header.Get("X-Evil") != "" {
					t.Errorf("Got(file part) = %q %q %q, %d bytes; want file %q, the bytes", p.FormName(), p.FileName(), p.Header.Get("Content-Type"), len(got), tt.want)
				}
				if _, err := mr.NextPart(); err != io.EOF {
					t.Errorf("Got(after the file) = %v; want the end", err)
				}
			}
		})
	}
}

func TestScope(t *testing.T) {
	a := upload.Scope("openai", "https://api.openai.com/v1/", "sk-secret", "org:o1", "")
	if strings.Contains(a, "secret") || a != upload.Scope("openai", "https://api.openai.com/v1", "sk-secret", "org:o1") ||
		!strings.HasPrefix(a, "openai https://api.openai.com/v1 key:") || !strings.HasSuffix(a, " org:o1") {
		t.Errorf("Got(Scope) = %q; want the provider, the base URL without its slash, a key hash, the organization", a)
	}
	if upload.Scope("openai", "https://api.openai.com/v1", "sk-other") == upload.Scope("openai", "https://api.openai.com/v1", "sk-secret") {
		t.Error("Got(two keys' scopes) equal; want them apart")
	}
}
