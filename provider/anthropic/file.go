package anthropic

import (
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/keel-go/keel"
)

// unknownMediaType stands for a file part that names no media type, in
// its refusal.
const unknownMediaType = "application/octet-stream"

// fileBlock encodes a file part as the Messages API expects it: an image
// block (base64, URL or file ID source), a PDF document block (base64, URL
// or file ID) or a plain-text document block. Any other media type is
// refused with "media type: <type>" before anything is sent.
func fileBlock(f keel.FilePart, inline *inlineFiles) (anthropic.ContentBlockParamUnion, error) {
	mediaType := fileMediaType(f)
	switch mediaType {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return imageBlock(f, mediaType, inline)
	case "application/pdf", "text/plain":
		return documentBlock(f, mediaType, inline)
	}
	if mediaType == "" {
		mediaType = unknownMediaType
	}
	return anthropic.ContentBlockParamUnion{}, &keel.UnsupportedFunctionalityError{Functionality: "media type: " + mediaType}
}

// fileMediaType is the part's media type without parameters, or, when it
// names none, the type of its data: URL.
func fileMediaType(f keel.FilePart) string {
	if t := keel.NormalizeMediaType(f.MediaType); t != "" {
		return t
	}
	if f.Source() == keel.SourceDataURL {
		header, _, _ := strings.Cut(f.URL[len("data:"):], ",")
		header, _ = strings.CutSuffix(header, ";base64")
		return keel.NormalizeMediaType(header)
	}
	return ""
}

func imageBlock(f keel.FilePart, mediaType string, inline *inlineFiles) (anthropic.ContentBlockParamUnion, error) {
	var src anthropic.ImageBlockParamSourceUnion
	switch f.Source() {
	case keel.SourceHTTP:
		src.OfURL = &anthropic.URLImageSourceParam{URL: f.URL}
	case keel.SourceReference:
		src.OfFile = &anthropic.FileImageSourceParam{FileID: f.URL}
	default:
		data, err := base64Data(f, inline)
		if err != nil {
			return anthropic.ContentBlockParamUnion{}, err
		}
		src.OfBase64 = &anthropic.Base64ImageSourceParam{Data: data, MediaType: anthropic.Base64ImageSourceMediaType(mediaType)}
	}
	return anthropic.ContentBlockParamUnion{OfImage: &anthropic.ImageBlockParam{Source: src}}, nil
}

func documentBlock(f keel.FilePart, mediaType string, inline *inlineFiles) (anthropic.ContentBlockParamUnion, error) {
	var src anthropic.DocumentBlockParamSourceUnion
	switch f.Source() {
	case keel.SourceHTTP:
		// The API fetches the URL itself.
		src.OfURL = &anthropic.URLPDFSourceParam{URL: f.URL}
	case keel.SourceReference:
		src.OfFile = &anthropic.FileDocumentSourceParam{FileID: f.URL}
	default:
		if mediaType == "text/plain" {
			data, err := f.InlineData()
			if err != nil {
				return anthropic.ContentBlockParamUnion{}, err
			}
			src.OfText = &anthropic.PlainTextSourceParam{Data: string(data)}
			break
		}
		data, err := base64Data(f, inline)
		if err != nil {
			return anthropic.ContentBlockParamUnion{}, err
		}
		src.OfBase64 = &anthropic.Base64PDFSourceParam{Data: data}
	}
	doc := &anthropic.DocumentBlockParam{Source: src}
	if f.Filename != "" {
		doc.Title = param.NewOpt(f.Filename)
	}
	return anthropic.ContentBlockParamUnion{OfDocument: doc}, nil
}

// base64Data registers the part's content with inline and returns the
// placeholder that stands for its base64 in the JSON. A data: URL that
// already holds standard base64, or bytes made from base64 by
// keel.FileFromBase64, are passed on as that text, which spares a decode
// or an encode of a large file.
func base64Data(f keel.FilePart, inline *inlineFiles) (string, error) {
	if b64, ok := f.StdBase64(); ok {
		return inline.add(inlineFile{base64: b64}), nil
	}
	if f.Source() == keel.SourceDataURL {
		header, payload, ok := strings.Cut(f.URL, ",")
		if ok && strings.HasSuffix(strings.ToLower(header), ";base64") && isStdBase64(payload) {
			return inline.add(inlineFile{base64: payload}), nil
		}
	}
	data, err := f.InlineData()
	if err != nil {
		return "", err
	}
	if data == nil {
		data = []byte{}
	}
	return inline.add(inlineFile{raw: data}), nil
}

// isStdBase64 reports whether s is padded standard base64, the only form
// the API takes.
func isStdBase64(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '+', c == '/':
		case c == '=' && (i == len(s)-1 || i == len(s)-2 && s[len(s)-1] == '='):
		default:
			return false
		}
	}
	return true
}
