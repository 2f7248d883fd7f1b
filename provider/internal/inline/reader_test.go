package inline_test

import (
	"encoding/base64"
	"errors"
	"io"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
)

func TestReader(t *testing.T) {
	data := []byte("hello, world! \x00\xff")
	tests := []struct {
		name string
		f    keel.FilePart
		err  error
	}{
		{"bytes", keel.FilePart{Data: data}, nil},
		{"standard base64", keel.FilePart{URL: keel.DataURL("application/pdf", data)}, nil},
		{"one padding", keel.FilePart{URL: "data:;base64," + base64.StdEncoding.EncodeToString(data[:14])}, nil},
		{"unpadded", keel.FilePart{URL: "data:;base64," + base64.RawStdEncoding.EncodeToString(data)}, nil},
		{"URL-safe", keel.FilePart{URL: "data:;base64," + base64.URLEncoding.EncodeToString(data)}, nil},
		{"percent-encoded", keel.FilePart{URL: "data:text/plain,hello%2C%20world"}, nil},
		{"undecodable", keel.FilePart{URL: "data:;base64,***"}, keel.ErrUndecodableData},
		{"a link", keel.FilePart{URL: "https://example.com/a.pdf"}, keel.ErrNotInline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open, size, err := inline.Reader(tt.f)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("Got(Reader) = %v; want %v", err, tt.err)
				}
				return
			}
			want, _ := tt.f.InlineData()
			for range 2 {
				got, err := io.ReadAll(open())
				if err != nil || string(got) != string(want) || size != int64(len(want)) {
					t.Errorf("Got(content) = %q (size %d), %v; want %q (%d)", got, size, err, want, len(want))
				}
			}
		})
	}
}
