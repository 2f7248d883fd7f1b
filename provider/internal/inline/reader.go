package inline

import (
	"bytes"
	"encoding/base64"
	"io"
	"strings"

	"github.com/keel-go/keel"
)

// Reader returns a function that opens a reader of f's inline bytes, and
// how many there are, without a copy of them: Data is read as it is, and
// a data: URL's standard base64 is decoded as it is read, so a file
// uploaded to a provider's file store is never held twice. Any other
// data: URL (percent-encoded, URL-safe or unpadded base64) is decoded
// once, here. It fails with keel.ErrNotInline for a file given by URL or
// reference, and with an error wrapping keel.ErrUndecodableData for
// content that cannot be decoded (standard base64 with a bad character
// fails while it is read).
func Reader(f keel.FilePart) (open func() io.Reader, size int64, err error) {
	switch f.Source() {
	case keel.SourceBytes:
		data := f.Data
		return func() io.Reader { return bytes.NewReader(data) }, int64(len(data)), nil
	case keel.SourceDataURL:
		header, payload, ok := strings.Cut(f.URL, ",")
		if ok && strings.HasSuffix(strings.ToLower(header), ";base64") && isStdBase64(payload) {
			n := int64(len(payload)) / 4 * 3
			n -= int64(len(payload) - len(strings.TrimRight(payload, "=")))
			return func() io.Reader { return base64.NewDecoder(base64.StdEncoding, strings.NewReader(payload)) }, n, nil
		}
	}
	data, err := f.InlineData()
	if err != nil {
		return nil, 0, err
	}
	return func() io.Reader { return bytes.NewReader(data) }, int64(len(data)), nil
}
