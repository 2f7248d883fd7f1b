package anthropic

import (
	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
)

var _ keel.LinkFetcher = (*Model)(nil)

// FetchesLink reports whether the Messages API fetches the file at f's
// http(s) URL itself, as the request sends it: a JPEG, PNG, GIF or WebP
// image (a url image source) or a PDF (a url document source). A plain
// text file by URL is refused (the API has no URL source for text), so it
// is downloaded, as every other type is.
func (m *Model) FetchesLink(f keel.FilePart) bool {
	switch inline.MediaType(f) {
	case "image/jpeg", "image/png", "image/gif", "image/webp", "application/pdf":
		return true
	}
	return false
}
