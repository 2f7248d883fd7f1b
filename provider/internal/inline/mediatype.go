package inline

import (
	"strings"

	"github.com/keel-go/keel"
)

// octetStream is the media type of a file that names none.
const octetStream = "application/octet-stream"

// MediaType is f's media type normalised (keel.NormalizeMediaType): its
// MediaType, or, when it names none, the type its data: URL names; "" when
// neither names one.
func MediaType(f keel.FilePart) string {
	if t := keel.NormalizeMediaType(f.MediaType); t != "" {
		return t
	}
	return keel.NormalizeMediaType(dataURLType(f))
}

// Given is f's media type as the request gave it, for a refusal to name:
// its MediaType without surrounding space, or, when it names none, the
// type its data: URL names, or "application/octet-stream" when neither
// names one.
func Given(f keel.FilePart) string {
	if t := strings.TrimSpace(f.MediaType); t != "" {
		return t
	}
	if t := strings.TrimSpace(dataURLType(f)); t != "" {
		return t
	}
	return octetStream
}

// OrOctetStream is mediaType, or "application/octet-stream" when it is
// empty.
func OrOctetStream(mediaType string) string {
	if mediaType == "" {
		return octetStream
	}
	return mediaType
}

// dataURLType is the media type in the head of f's data: URL, parameters
// included but not ";base64"; "" for any other source.
func dataURLType(f keel.FilePart) string {
	if f.Source() != keel.SourceDataURL {
		return ""
	}
	header, _, _ := strings.Cut(f.URL[len("data:"):], ",")
	if i := len(header) - len(";base64"); i >= 0 && strings.EqualFold(header[i:], ";base64") {
		header = header[:i]
	}
	return header
}
