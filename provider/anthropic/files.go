package anthropic

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/inline"
	"github.com/keel-go/keel/provider/internal/upload"
)

// InlineLimit is the most inline file data keel sends the Messages API in
// one request: a request may be 32 MB in all, its base64 counted.
const InlineLimit = 32_000_000

// FilesBeta is the anthropic-beta value of the Files API: the upload
// carries it, and so does every Messages call that names a file by ID.
const FilesBeta = "files-api-2025-04-14"

// fileStore is Anthropic's Files API (POST /v1/files), as
// [keel.FileStore].
type fileStore struct {
	m     *Model
	scope string
}

var (
	_ keel.FileStorer = (*Model)(nil)
	_ keel.FileStore  = (*fileStore)(nil)
)

// FileStore returns Anthropic's Files API.
func (m *Model) FileStore() keel.FileStore { return m.files }

// InlineLimit returns [InlineLimit].
func (s *fileStore) InlineLimit() int64 { return InlineLimit }

// FileScope returns "anthropic <base URL> key:<hash>": a file belongs to
// the workspace of the key that uploaded it, and any model reads it.
func (s *fileStore) FileScope() string { return s.scope }

// UploadFile uploads f to the Files API. The SDK's Beta.Files.Upload
// would marshal the whole multipart body into a buffer first, a second
// copy of the file; this sends it through the SDK's client (its key, base
// URL, errors) as a reader of the file, with its length. Files the
// Messages API cannot name by ID (anything but images of type jpeg, png,
// gif and webp, PDFs and plain text) are refused before anything is sent.
// Anthropic keeps a file until it is deleted, and keel deletes none: the
// reference is counted on for [upload.DefaultExpiry] (30 days), and one
// the API no longer knows is answered with [keel.FaultFileGone].
func (s *fileStore) UploadFile(ctx context.Context, f keel.FilePart) (keel.ProviderFile, error) {
	if !f.IsInline() {
		return keel.ProviderFile{}, fmt.Errorf("anthropic: upload file %q: %w", f.Filename, keel.ErrNotInline)
	}
	mediaType := inline.MediaType(f)
	switch mediaType {
	case "image/jpeg", "image/png", "image/gif", "image/webp", "application/pdf", "text/plain":
	default:
		return keel.ProviderFile{}, &keel.UnsupportedFunctionalityError{
			Functionality: "file IDs of media type " + inline.OrOctetStream(mediaType), MediaType: inline.Given(f)}
	}
	open, size, err := inline.Reader(f)
	if err != nil {
		return keel.ProviderFile{}, fmt.Errorf("anthropic: upload file %q: %w", f.Filename, err)
	}
	name := f.Filename
	name = cmp.Or(name, "file")
	body, err := upload.NewMultipart(nil, "file", name, mediaType, open, size)
	if err != nil {
		return keel.ProviderFile{}, fmt.Errorf("anthropic: upload file %q: %w", f.Filename, err)
	}
	c := &call{x: exchange.New(s.m.timeouts)}
	var res anthropic.BetaFileMetadata
	started := time.Now()
	err = s.m.client.Post(ctx, "v1/files", body.Reader(), &res,
		option.WithHeader("Content-Type", body.ContentType()),
		option.WithHeaderAdd("anthropic-beta", FilesBeta),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			// The SDK sends a reader it was given with chunked encoding;
			// the length is known.
			r.ContentLength, r.GetBody = body.Len(), body.ReadCloser
			return c.x.Do(r, next)
		}))
	if err != nil {
		return keel.ProviderFile{}, callError(ctx, "upload file", s.m.endpoint, c, err)
	}
	if res.ID == "" {
		return keel.ProviderFile{}, fmt.Errorf("anthropic: upload file %q: the answer names no file ID", f.Filename)
	}
	return keel.ProviderFile{Ref: res.ID, MediaType: mediaType, ExpiresAt: started.Add(upload.DefaultExpiry)}, nil
}

// usesFileIDs reports whether req names a file by ID, which the Messages
// API reads only with the Files API's beta header.
func usesFileIDs(req *keel.Request) bool {
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if f, ok := p.(keel.FilePart); ok && f.Source() == keel.SourceReference {
				return true
			}
		}
	}
	return false
}
