package keel

import (
	"errors"
	"fmt"
	"mime"
	"strconv"
	"strings"
)

// NormalizeMediaType returns the media type without parameters, trimmed and
// lower-cased: "Text/CSV; charset=utf-8" becomes "text/csv".
func NormalizeMediaType(mediaType string) string {
	if i := strings.IndexByte(mediaType, ';'); i >= 0 {
		mediaType = mediaType[:i]
	}
	return strings.ToLower(strings.TrimSpace(mediaType))
}

// IsReadable reports whether every model is expected to read a file of this
// media type: an image, text, or a PDF. A missing media type is not
// readable. Files of other types may still be read by some models; the
// runtime only takes them out of the prompt once a model refused one.
func IsReadable(mediaType string) bool {
	t := NormalizeMediaType(mediaType)
	return strings.HasPrefix(t, "image/") || strings.HasPrefix(t, "text/") || t == "application/pdf"
}

// MatchMediaClass reports whether mediaType (normalised first) is of
// class: "*/*" matches every type, "image/*" every image, and a class
// without a wildcard only itself. An empty class or type matches nothing.
func MatchMediaClass(class, mediaType string) bool {
	class, t := NormalizeMediaType(class), NormalizeMediaType(mediaType)
	if class == "" || t == "" {
		return false
	}
	if class == "*/*" || class == t {
		return true
	}
	top, ok := strings.CutSuffix(class, "/*")
	return ok && strings.HasPrefix(t, top+"/")
}

// MaxMediaTypeLength is the longest media type [CheckMediaType] accepts,
// parameters included, in bytes.
const MaxMediaTypeLength = 255

// ErrInvalidMediaType is wrapped by the errors of [CheckMediaType].
var ErrInvalidMediaType = errors.New("keel: invalid media type")

// CheckMediaType returns nil when mediaType is safe to pass on to a
// provider, store and give back: at most [MaxMediaTypeLength] bytes of
// printable ASCII (no control character, so no CR or LF that could end a
// header line where a provider or proxy writes it), "type/subtype" whose
// two names follow RFC 6838 (a letter or digit, then up to 126 letters,
// digits or the characters ! # $ & - ^ _ . +), and parameters that
// mime.ParseMediaType accepts ("text/csv; charset=utf-8"). Names are
// compared without regard to case, so "Application/PDF" passes. The
// error, which wraps [ErrInvalidMediaType], says what is wrong; it never
// repeats the value's control characters.
func CheckMediaType(mediaType string) error {
	fail := func(why string) error {
		return fmt.Errorf("%w %s: %s", ErrInvalidMediaType, quoteShort(mediaType), why)
	}
	switch {
	case mediaType == "":
		return fail("it is empty; want type/subtype such as application/pdf")
	case len(mediaType) > MaxMediaTypeLength:
		return fail(fmt.Sprintf("it is %d bytes long; want at most %d", len(mediaType), MaxMediaTypeLength))
	}
	for i := 0; i < len(mediaType); i++ {
		if c := mediaType[i]; c < 0x20 || c > 0x7e {
			return fail(fmt.Sprintf("byte %d is 0x%02x; want printable ASCII only (no control characters, no CR or LF)", i, c))
		}
	}
	base, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		return fail(err.Error())
	}
	typ, sub, ok := strings.Cut(base, "/")
	if !ok || !restrictedName(typ) || !restrictedName(sub) {
		return fail("want type/subtype, each a letter or digit then up to 126 of letters, digits and !#$&-^_.+ (RFC 6838)")
	}
	return nil
}

// restrictedName reports whether s is an RFC 6838 restricted-name.
func restrictedName(s string) bool {
	if s == "" || len(s) > 127 || !isAlnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && !strings.ContainsRune("!#$&-^_.+", rune(c)) {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// quoteShort quotes s, escaping what is not printable, cut to 64 bytes.
func quoteShort(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "..."
	}
	return strconv.Quote(s)
}
