package openai

import (
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
)

var _ keel.LinkFetcher = (*Model)(nil)

// FetchesLink reports whether OpenAI fetches the file at f's http(s) URL
// itself, as the request sends it: an image (image_url in Chat
// Completions, input_image in Responses); in Responses also a PDF, and,
// unless [Options].OnlyPDFDocuments, any document but audio and video
// (input_file's file_url). Chat Completions refuses PDFs and audio by
// URL, so those are downloaded. An OpenAI-compatible server fetches
// nothing: whether it reads image URLs varies by server, and the bytes
// always work.
func (m *Model) FetchesLink(f keel.FilePart) bool {
	if m.provider != "openai" {
		return false
	}
	mt := inline.MediaType(f)
	if strings.HasPrefix(mt, "image/") {
		return true
	}
	if m.api != APIResponses || mt == "" {
		return false
	}
	media := strings.HasPrefix(mt, "audio/") || strings.HasPrefix(mt, "video/")
	return mt == "application/pdf" || m.passThrough && !media
}
