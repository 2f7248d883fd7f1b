package convert

import (
	"bytes"
	"net/http"
	"strings"
	"unicode/utf8"
)

// oleMagic starts a Compound File: .doc, .xls, .ppt, .msg and encrypted
// Office files.
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// describeContent names what data looks like, for an error saying a file
// is not what it claims: "a PNG image (image/png)".
func describeContent(data []byte) string {
	switch {
	case len(data) == 0:
		return "empty"
	case bytes.HasPrefix(data, oleMagic):
		return "a legacy Office or encrypted Office file (Compound File)"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")), bytes.HasPrefix(data, []byte("PK\x05\x06")):
		return "a zip archive"
	}
	t := http.DetectContentType(data)
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	switch {
	case strings.HasPrefix(t, "image/"):
		return "an image (" + t + ")"
	case t == "application/octet-stream":
		return "binary data"
	default:
		return "of type " + t
	}
}

// isText reports whether data reads as text: valid UTF-8 (or UTF-16 with
// a byte order mark) without NUL bytes, and almost no control
// characters besides tab, line feed, form feed and carriage return.
func isText(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	if hasUTF16BOM(data) {
		return len(data)%2 == 0
	}
	if !utf8.Valid(data) {
		return false
	}
	controls := 0
	for _, b := range data {
		switch {
		case b == 0:
			return false
		case b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x1b:
			controls++
		}
	}
	return controls*100 <= len(data)
}

func hasUTF16BOM(data []byte) bool {
	return len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF)
}
