package keel_test

import (
	"bytes"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/keel-go/keel"
)

func TestParseDataURL(t *testing.T) {
	tests := []struct {
		name, url, mediaType, data string
		wantErr                    bool
	}{
		{"percent-encoded text", "data:text/plain,hello%20world", "text/plain", "hello world", false},
		{"escapes of any case and byte", "data:application/octet-stream,%00%ff%C3%A9%2c", "application/octet-stream", "\x00\xff\u00e9,", false},
		{"plus stays a plus", "data:text/plain,a+b", "text/plain", "a+b", false},
		{"no escapes", "data:text/plain,hi", "text/plain", "hi", false},
		{"parameters kept", "data:text/plain;charset=utf-8,caf%C3%A9", "text/plain;charset=utf-8", "café", false},
		{"no media type", "data:,A%20brief%20note", "", "A brief note", false},
		{"empty data", "data:text/plain,", "text/plain", "", false},
		{"base64", "data:text/plain;base64,aGVsbG8gd29ybGQ=", "text/plain", "hello world", false},
		{"base64 with parameters", "data:text/plain;charset=utf-8;base64,aGk=", "text/plain;charset=utf-8", "hi", false},
		{"base64 is not percent-decoded", "data:text/plain;base64,aGk%3D", "text/plain", "", true},
		{"invalid escape", "data:text/plain,100%", "text/plain", "", true},
		{"escape cut short", "data:text/plain,%4", "text/plain", "", true},
		{"escape not hex", "data:text/plain,%zz", "text/plain", "", true},
		{"no comma", "data:text/plain", "", "", true},
		{"not a data URL", "https://example.com/a", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mt, data, err := keel.ParseDataURL(tt.url)
			if tt.wantErr {
				if !errors.Is(err, keel.ErrUndecodableData) {
					t.Errorf("Got(ParseDataURL(%q)) error %v; want one wrapping keel.ErrUndecodableData", tt.url, err)
				}
				return
			}
			if err != nil || mt != tt.mediaType || string(data) != tt.data {
				t.Errorf("Got(ParseDataURL(%q)) = %q, %q, %v; want %q, %q", tt.url, mt, data, err, tt.mediaType, tt.data)
			}
		})
	}
}

// TestPercentEncodedFileIsDecoded checks that a file given as a
// percent-encoded data: URL reads as its decoded bytes wherever keel reads
// it, and that a broken escape is undecodable data.
func TestPercentEncodedFileIsDecoded(t *testing.T) {
	f := keel.FilePart{URL: "data:text/plain,hello%20world", MediaType: "text/plain", Filename: "a.txt"}
	if data, err := f.InlineData(); err != nil || string(data) != "hello world" {
		t.Errorf("Got(InlineData) = %q, %v; want %q", data, err, "hello world")
	}
	want, _ := keel.FilePart{Data: []byte("hello world")}.Digest()
	if got, err := f.Digest(); err != nil || got != want {
		t.Errorf("Got(Digest) = %q, %v; want the digest of the decoded bytes %q", got, err, want)
	}
	broken := keel.FilePart{URL: "data:text/plain,50%off"}
	if _, err := broken.InlineData(); !errors.Is(err, keel.ErrUndecodableData) {
		t.Errorf("Got(InlineData of %q) error %v; want keel.ErrUndecodableData", broken.URL, err)
	}
}

func TestFilePartDigest(t *testing.T) {
	const helloSum = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9" // sha256("hello world")
	given := strings.Repeat("ab", 32)
	tests := []struct {
		name    string
		part    keel.FilePart
		want    string
		wantErr error
	}{
		{"bytes", keel.FilePart{Data: []byte("hello world")}, helloSum, nil},
		{"base64 data URL", keel.FilePart{URL: keel.DataURL("text/plain", []byte("hello world"))}, helloSum, nil},
		{"empty", keel.FilePart{Data: []byte{}}, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", nil},
		{"given digest is trusted", keel.FilePart{Data: []byte("hello world"), SHA256: given}, given, nil},
		{"link", keel.FilePart{URL: "https://example.com/a.pdf"}, "", keel.ErrNotInline},
		{"undecodable", keel.FilePart{URL: "data:text/plain;base64,***"}, "", keel.ErrUndecodableData},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.part.Digest()
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("Got(Digest()) = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// FuzzParseDataURL checks that any data: URL either decodes or gives an
// error wrapping keel.ErrUndecodableData, and that percent-encoding any
// bytes and decoding them gives them back.
func FuzzParseDataURL(f *testing.F) {
	for _, seed := range []string{"data:text/plain,hello%20world", "data:;base64,aGk=", "data:text/plain,%", "data:,%zz", "data:a/b;c=d,%2B+"} {
		f.Add(seed, []byte("hi\x00\xff"))
	}
	f.Fuzz(func(t *testing.T, u string, raw []byte) {
		if _, _, err := keel.ParseDataURL(u); err != nil && !errors.Is(err, keel.ErrUndecodableData) {
			t.Errorf("Got(ParseDataURL(%q)) error %v; want nil or keel.ErrUndecodableData", u, err)
		}
		encoded := "data:application/octet-stream," + url.PathEscape(string(raw))
		if _, data, err := keel.ParseDataURL(encoded); err != nil || !bytes.Equal(data, raw) {
			t.Errorf("Got(ParseDataURL(%q)) = %q, %v; want %q", encoded, data, err, raw)
		}
	})
}
