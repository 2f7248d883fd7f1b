package anthropic

import (
	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
)

// fileBlock encodes a file part as the Messages API expects it: an image
// block (base64, URL or file ID source), a PDF document block (base64, URL
// or file ID) or a plain-text document block. Any other media type is
// refused with "media type: <type>" before anything is sent.
func fileBlock(f keel.FilePart, files *inline.Files) (anthropic.ContentBlockParamUnion, error) {
	mediaType := inline.MediaType(f)
	switch mediaType {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return imageBlock(f, mediaType, files)
	case "application/pdf", "text/plain":
		return documentBlock(f, mediaType, files)
	}
	return anthropic.ContentBlockParamUnion{}, &keel.UnsupportedFunctionalityError{
		Functionality: "media type: " + inline.OrOctetStream(mediaType), MediaType: inline.Given(f),
	}
}

func imageBlock(f keel.FilePart, mediaType string, files *inline.Files) (anthropic.ContentBlockParamUnion, error) {
	var src anthropic.ImageBlockParamSourceUnion
	switch f.Source() {
	case keel.SourceHTTP:
		src.OfURL = &anthropic.URLImageSourceParam{URL: f.URL}
	case keel.SourceReference:
		src.OfFile = &anthropic.FileImageSourceParam{FileID: f.URL}
	default:
		data, err := files.Text(f)
		if err != nil {
			return anthropic.ContentBlockParamUnion{}, err
		}
		src.OfBase64 = &anthropic.Base64ImageSourceParam{Data: data, MediaType: anthropic.Base64ImageSourceMediaType(mediaType)}
	}
	return anthropic.ContentBlockParamUnion{OfImage: &anthropic.ImageBlockParam{Source: src}}, nil
}

func documentBlock(f keel.FilePart, mediaType string, files *inline.Files) (anthropic.ContentBlockParamUnion, error) {
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
		data, err := files.Text(f)
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
