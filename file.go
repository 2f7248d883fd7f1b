package keel

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// FilePart is a file in a message. It holds its content inline (Data) or
// refers to it (URL); never both.
type FilePart struct {
	// Data is the file's content. Never modified once the part exists:
	// clones of a message share it.
	Data []byte
	// URL refers to the content when Data is nil: an http(s) URL, a data:
	// URL ("data:<type>;base64,<data>"), or a provider's file reference
	// (such as OpenAI's "file-abc123"). Use [FilePart.InlineData] to get the
	// bytes of inline content whatever its form.
	URL string
	// MediaType is the media type as the sender gave it, for example
	// "application/pdf" or "text/csv; charset=utf-8". It may be empty.
	MediaType string
	// Filename is the name the sender gave the file. It may be empty.
	Filename string
	// SHA256 is the lower-case hex SHA-256 of the file's inline bytes when
	// it is known, so that a digest computed once (a store computes one for
	// every file it keeps) is carried with the file rather than computed
	// again by each processor. Stores set it on the file parts they return;
	// it is "" otherwise, and for files given by URL or reference. It is
	// not checked against the bytes: set it only from a digest of them.
	SHA256 string
}

// PartType returns "file".
func (FilePart) PartType() string { return "file" }
func (FilePart) isPart()          {}

// ErrNotInline is returned by [FilePart.InlineData] for a file that refers to
// its content by http(s) URL or provider file reference.
var ErrNotInline = errors.New("keel: file content is not inline")

// ErrUndecodableData is returned (wrapped) by [FilePart.InlineData] when a
// data: URL's content cannot be decoded.
var ErrUndecodableData = errors.New("keel: file has inline data that cannot be decoded")

// FileSource says where a [FilePart]'s content is.
type FileSource int

// The sources a file part can have.
const (
	// SourceBytes: the content is in Data.
	SourceBytes FileSource = iota
	// SourceDataURL: the content is in a data: URL.
	SourceDataURL
	// SourceHTTP: the content is at an http(s) URL.
	SourceHTTP
	// SourceReference: URL is a provider's file reference (such as an
	// OpenAI file ID).
	SourceReference
)

// Source reports where the part's content is.
func (f FilePart) Source() FileSource {
	if f.Data != nil || f.URL == "" {
		return SourceBytes
	}
	u := f.URL
	switch {
	case hasPrefixFold(u, "data:"):
		return SourceDataURL
	case hasPrefixFold(u, "http://"), hasPrefixFold(u, "https://"):
		return SourceHTTP
	default:
		return SourceReference
	}
}

// IsInline reports whether the content travels with the part (bytes or a
// data: URL).
func (f FilePart) IsInline() bool {
	s := f.Source()
	return s == SourceBytes || s == SourceDataURL
}

// InlineData returns the file's bytes when they are inline: Data as is, or
// the decoded content of a data: URL. It returns [ErrNotInline] for URLs
// and references, and an error wrapping [ErrUndecodableData] for a data:
// URL it cannot decode. The returned slice must not be modified.
func (f FilePart) InlineData() ([]byte, error) {
	switch f.Source() {
	case SourceBytes:
		return f.Data, nil
	case SourceDataURL:
		_, data, err := ParseDataURL(f.URL)
		return data, err
	default:
		return nil, ErrNotInline
	}
}

// Digest returns the lower-case hex SHA-256 of the file's inline bytes:
// SHA256 when it is set (as given, not checked against the bytes), else
// computed, which reads every byte (and decodes a data: URL first). Code
// that needs a file's digest more than once should keep it, in SHA256 for
// example. The errors are those of [FilePart.InlineData].
func (f FilePart) Digest() (string, error) {
	if f.SHA256 != "" {
		return f.SHA256, nil
	}
	data, err := f.InlineData()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// ParseDataURL decodes a data: URL ("data:[<media type>][;base64],<data>",
// RFC 2397) into its media type and bytes. The media type is the text
// before the data, parameters included ("text/plain;charset=utf-8"),
// without ";base64". Data in base64 is decoded as [DecodeBase64] does;
// other data is percent-decoded ("hello%20world" is "hello world"; a "+"
// stays a "+"). Malformed data, such as an invalid percent escape, gives
// an error wrapping [ErrUndecodableData].
func ParseDataURL(u string) (mediaType string, data []byte, err error) {
	if !hasPrefixFold(u, "data:") {
		return "", nil, fmt.Errorf("%w: not a data URL", ErrUndecodableData)
	}
	header, payload, ok := strings.Cut(u[len("data:"):], ",")
	if !ok {
		return "", nil, fmt.Errorf("%w: data URL has no comma", ErrUndecodableData)
	}
	mediaType, isBase64 := strings.CutSuffix(header, ";base64")
	if !isBase64 {
		// Path unescaping is RFC 3986's percent-decoding, without the
		// "+" for a space of query strings.
		text, err := url.PathUnescape(payload)
		if err != nil {
			return mediaType, nil, fmt.Errorf("%w: %v", ErrUndecodableData, err)
		}
		return mediaType, []byte(text), nil
	}
	data, err = DecodeBase64(payload)
	return mediaType, data, err
}

// DecodeBase64 decodes standard or URL-safe base64, padded or not. The
// error wraps [ErrUndecodableData].
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
		s = strings.TrimRight(s, "=")
	}
	out := make([]byte, enc.DecodedLen(len(s)))
	n, err := enc.Decode(out, []byte(s))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUndecodableData, err)
	}
	return out[:n], nil
}

// DataURL encodes data as a base64 data: URL of the given media type.
func DataURL(mediaType string, data []byte) string {
	prefix := "data:" + mediaType + ";base64,"
	buf := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(len(data)))
	copy(buf, prefix)
	base64.StdEncoding.Encode(buf[len(prefix):], data)
	return string(buf)
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
