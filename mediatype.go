package keel

import "strings"

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
