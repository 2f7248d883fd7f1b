package google

import (
	"net/url"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
)

var _ keel.LinkFetcher = (*Model)(nil)

// FetchesLink reports whether Gemini reads the file at f's http(s) URL
// itself when the request sends it as fileData: a file of the Gemini
// Files API (https://generativelanguage.googleapis.com/.../files/...),
// and a YouTube video. Any other link is downloaded and sent inline,
// which Gemini reads whatever the host.
func (m *Model) FetchesLink(f keel.FilePart) bool {
	u, err := url.Parse(f.URL)
	if err != nil || u.Scheme != "https" {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "generativelanguage.googleapis.com":
		return strings.Contains(u.Path, "/files/")
	case "www.youtube.com", "youtube.com", "youtu.be":
		return strings.HasPrefix(inline.MediaType(f), "video/")
	}
	return false
}
