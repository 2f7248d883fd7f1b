package keel_test

import (
	"testing"

	"github.com/keel-go/keel"
)

func TestMediaTypeByExtension(t *testing.T) {
	tests := []struct{ ext, want string }{
		{"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{".XLSX", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{".doc", "application/msword"},
		{"jpeg", "image/jpeg"},
		{"JPG", "image/jpeg"},
		{"yml", "application/yaml"},
		{"heic", "image/heic"},
		{"markdown", "text/markdown"},
		{"", ""},
		{".", ""},
		{"no-such-extension-anywhere", ""},
	}
	for _, tt := range tests {
		if got := keel.MediaTypeByExtension(tt.ext); got != tt.want {
			t.Errorf("MediaTypeByExtension(%q) = %q; want %q", tt.ext, got, tt.want)
		}
	}
}

func TestExtensionOf(t *testing.T) {
	tests := []struct{ mediaType, want string }{
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"},
		{"Image/JPEG; q=1", "jpg"},
		{"image/jpg", "jpg"},
		{"audio/x-wav", "wav"},
		{"audio/vnd.wave", "wav"},
		{"text/x-markdown", "md"},
		{"application/x-zip-compressed", "zip"},
		{"application/octet-stream", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := keel.ExtensionOf(tt.mediaType); got != tt.want {
			t.Errorf("ExtensionOf(%q) = %q; want %q", tt.mediaType, got, tt.want)
		}
	}
}

// TestFileTypesRoundTrip holds the table to one answer per name: every
// extension keel gives maps back to a type that gives that extension.
func TestFileTypesRoundTrip(t *testing.T) {
	for _, ext := range []string{"xlsx", "docx", "pptx", "xls", "doc", "ppt", "odt", "ods", "odp", "rtf", "epub", "msg", "eml",
		"pdf", "csv", "tsv", "md", "txt", "html", "xml", "json", "yaml", "zip", "gz", "tar", "png", "jpg", "gif", "webp", "svg",
		"heic", "heif", "avif", "tiff", "bmp", "mp3", "wav", "ogg", "webm", "mp4"} {
		mt := keel.MediaTypeByExtension(ext)
		if got := keel.ExtensionOf(mt); got != ext {
			t.Errorf("ExtensionOf(MediaTypeByExtension(%q) = %q) = %q; want %q", ext, mt, got, ext)
		}
	}
}

func TestMediaTypeOf(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"Q3 report.XLSX", []byte("PK\x03\x04"), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{"notes", []byte("plain words"), "text/plain"},
		{"scan", []byte("%PDF-1.7\n"), "application/pdf"},
		{`dir.v2/noext`, []byte("\x89PNG\r\n\x1a\n"), "image/png"},
		{`C:\dir.v2\noext`, []byte("\x89PNG\r\n\x1a\n"), "image/png"},
		{"trailing.", []byte{0, 1, 2}, "application/octet-stream"},
	}
	for _, tt := range tests {
		if got := keel.MediaTypeOf(tt.name, tt.data); got != tt.want {
			t.Errorf("MediaTypeOf(%q) = %q; want %q", tt.name, got, tt.want)
		}
	}
}
