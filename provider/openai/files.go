package openai

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/inline"
	"github.com/keel-go/keel/provider/internal/upload"
)

// InlineLimit is the most inline file data keel sends OpenAI in one
// request: its file inputs take "32 MB of total content" per request.
// Counted as sent (base64), it leaves room for the rest of the request.
const InlineLimit = 32_000_000

// FileLifetime is how long a file keel uploads is kept: OpenAI keeps a
// user_data file until it is deleted, so keel asks for it to be deleted
// after 30 days (expires_after, the longest OpenAI allows) rather than
// leave it behind.
const FileLifetime = 30 * 24 * time.Hour

// fileStore is OpenAI's Files API (POST /files), as [keel.FileStore].
type fileStore struct {
	m      *Model
	client sdk.Client
	scope  string
}

var (
	_ keel.FileStorer = (*Model)(nil)
	_ keel.FileStore  = (*fileStore)(nil)
)

// FileStore returns OpenAI's Files API, or nil for an OpenAI-compatible
// server ([Options.ProviderName]): those have no Files API that the chat
// endpoints read, so a file too large for them is handled as refused.
func (m *Model) FileStore() keel.FileStore {
	if m.files == nil {
		return nil
	}
	return m.files
}

// newFileStore returns the Files API of m, reached with the request
// options of its calls (key, base URL, organization, project, headers).
func newFileStore(m *Model, ropts []option.RequestOption, key, baseURL string, org, project string) *fileStore {
	if baseURL == "" {
		baseURL = "https://api.openai.com/v1"
	}
	more := []string{}
	if org != "" {
		more = append(more, "org:"+org)
	}
	if project != "" {
		more = append(more, "project:"+project)
	}
	return &fileStore{m: m, client: sdk.Client{Options: ropts}, scope: upload.Scope(m.provider, baseURL, key, more...)}
}

// InlineLimit returns [InlineLimit].
func (s *fileStore) InlineLimit() int64 { return InlineLimit }

// FileScope returns "openai <base URL> key:<hash>", with the organization
// and project when they are set: a file belongs to the project that
// uploaded it, and any model of it reads the file.
func (s *fileStore) FileScope() string { return s.scope }

// UploadFile uploads f to POST /files, purpose "user_data" ("vision" for
// an image), to be deleted by OpenAI after [FileLifetime]. The SDK's
// Files.New would marshal the whole multipart body into a buffer first, a
// second copy of the file; this sends the body through the SDK's client
// (its key, base URL, errors) as a reader of the file. A file the model's
// API cannot name by ID is refused before anything is sent: Chat
// Completions takes PDFs only by file_id; the Responses API takes images
// and documents.
func (s *fileStore) UploadFile(ctx context.Context, f keel.FilePart) (keel.ProviderFile, error) {
	if !f.IsInline() {
		return keel.ProviderFile{}, fmt.Errorf("openai: upload file %q: %w", f.Filename, keel.ErrNotInline)
	}
	mediaType := inline.MediaType(f)
	purpose, err := s.m.referencePurpose(f, mediaType)
	if err != nil {
		return keel.ProviderFile{}, err
	}
	open, size, err := inline.Reader(f)
	if err != nil {
		return keel.ProviderFile{}, fmt.Errorf("openai: upload file %q: %w", f.Filename, err)
	}
	name := f.Filename
	if name == "" {
		name = "file" + extensionOf(mediaType)
	}
	body, err := upload.NewMultipart([]upload.Field{
		{Name: "purpose", Value: purpose},
		{Name: "expires_after[anchor]", Value: "created_at"},
		{Name: "expires_after[seconds]", Value: strconv.Itoa(int(FileLifetime / time.Second))},
	}, "file", name, inline.OrOctetStream(mediaType), open, size)
	if err != nil {
		return keel.ProviderFile{}, fmt.Errorf("openai: upload file %q: %w", f.Filename, err)
	}
	x := exchange.New(s.m.timeouts)
	var res sdk.FileObject
	started := time.Now()
	err = s.client.Post(ctx, "files", body.Reader(), &res,
		option.WithHeader("Content-Type", body.ContentType()),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			// The SDK sends a reader it was given with chunked encoding;
			// the length is known.
			r.ContentLength = body.Len()
			r.GetBody = body.ReadCloser
			return x.Do(r, next)
		}))
	if err != nil {
		return keel.ProviderFile{}, s.m.toError(ctx, x, err)
	}
	if res.ID == "" {
		return keel.ProviderFile{}, fmt.Errorf("openai: upload file %q: the answer names no file ID", f.Filename)
	}
	expires := started.Add(FileLifetime)
	if res.ExpiresAt > 0 {
		expires = time.Unix(res.ExpiresAt, 0)
	}
	return keel.ProviderFile{Ref: res.ID, MediaType: mediaType, ExpiresAt: expires}, nil
}

// referencePurpose returns the purpose a file of mediaType is uploaded
// with, or refuses a file the model's API cannot name by ID.
func (m *Model) referencePurpose(f keel.FilePart, mediaType string) (string, error) {
	switch {
	case strings.HasPrefix(mediaType, "image/"):
		if m.api == APIChat {
			return "", refuse("image file parts with file IDs")
		}
		if !m.takesImage(mediaType) {
			return "", refuseType("image part media type ", f)
		}
		return "vision", nil
	case mediaType == "application/pdf":
		return "user_data", nil
	case m.api == APIResponses && m.passThrough && !strings.HasPrefix(mediaType, "audio/") && !strings.HasPrefix(mediaType, "video/"):
		return "user_data", nil
	}
	return "", refuseType("file part media type ", f)
}
