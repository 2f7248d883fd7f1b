package fetch

import (
	"strings"

	"github.com/keel-go/keel"
)

// aliases are media types that name the same kind of file, each mapped
// to the name keel uses.
var aliases = map[string]string{
	"image/jpg":                    "image/jpeg",
	"image/pjpeg":                  "image/jpeg",
	"audio/mp3":                    "audio/mpeg",
	"audio/x-wav":                  "audio/wav",
	"audio/wave":                   "audio/wav",
	"application/x-pdf":            "application/pdf",
	"application/x-zip-compressed": "application/zip",
	"text/x-markdown":              "text/markdown",
}

// MediaTypeMatches reports whether a server's Content-Type got is the
// type want that a file part gave, both normalised (parameters dropped,
// lower-cased) first. They match when:
//
//   - want is empty (the part did not say; the server's type is used);
//   - they are equal, or aliases of one type (image/jpg and image/jpeg,
//     audio/mp3 and audio/mpeg, application/x-pdf and application/pdf,
//     ...);
//   - want ends in "/*" and got has that top-level type (image/* and
//     image/png);
//   - got is one of the types servers send when they do not know better:
//     none at all, application/octet-stream or binary/octet-stream for any
//     want, text/plain for a want of text/*.
//
// Anything else is a mismatch: a link to report.pdf that gives text/html
// is most often a login or error page in place of an expired file.
func MediaTypeMatches(want, got string) bool {
	want, got = canonicalType(want), canonicalType(got)
	switch {
	case want == "", want == got:
		return true
	case got == "", got == "application/octet-stream", got == "binary/octet-stream":
		return true
	case strings.HasSuffix(want, "/*"):
		return strings.HasPrefix(got, strings.TrimSuffix(want, "*"))
	case got == "text/plain":
		return strings.HasPrefix(want, "text/")
	}
	return false
}

func canonicalType(t string) string {
	t = keel.NormalizeMediaType(t)
	if a, ok := aliases[t]; ok {
		return a
	}
	return t
}
