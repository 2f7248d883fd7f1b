package google

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/inline"
	"github.com/keel-go/keel/provider/internal/upload"
)

// InlineLimit is the most inline data a Gemini request may carry: 20 MB
// ("Request payload size exceeds the limit: 20971520 bytes."), the whole
// request counted. A request whose inline files would be more sends the
// largest through the Files API.
const InlineLimit = 20 << 20

// FileLifetime is how long Gemini keeps an uploaded file, when its answer
// does not say (it does, as expirationTime).
const FileLifetime = 48 * time.Hour

// maxProcessingWait bounds the wait for a file Gemini is still processing
// (large videos, mostly) to become ACTIVE: a request naming a file in
// PROCESSING is refused.
const maxProcessingWait = 2 * time.Minute

// fileStore is Gemini's Files API, as [keel.FileStore].
type fileStore struct {
	m       *Model
	hc      *http.Client
	base    *url.URL // the API's root, ending in "/"
	key     string
	headers http.Header
	scope   string
}

var (
	_ keel.FileStorer = (*Model)(nil)
	_ keel.FileStore  = (*fileStore)(nil)
)

// FileStore returns Gemini's Files API: every Gemini model has it.
func (m *Model) FileStore() keel.FileStore { return m.files }

func newFileStore(m *Model, hc *http.Client, baseURL, key string, headers http.Header) (*fileStore, error) {
	base, err := url.Parse(strings.TrimRight(baseURL, "/") + "/")
	if err != nil {
		return nil, fmt.Errorf("google: new: base URL: %w", err)
	}
	return &fileStore{m: m, hc: hc, base: base, key: key, headers: headers.Clone(),
		scope: upload.Scope(ProviderName, base.String(), key)}, nil
}

// InlineLimit returns [InlineLimit].
func (s *fileStore) InlineLimit() int64 { return InlineLimit }

// FileScope returns "google <base URL> key:<hash>": a file belongs to the
// project of the key that uploaded it, and any model of that project
// reads it.
func (s *fileStore) FileScope() string { return s.scope }

// UploadFile uploads f with Gemini's resumable protocol, as the SDK's
// Files.Upload does, but in one request: the start command, then the
// whole file with "upload, finalize". The SDK reads the file in 8 MiB
// chunks into a buffer of its own, 8 MiB of heap beyond the file; this
// reads it straight into the connection. A file Gemini is still
// processing is waited for (through the SDK's Files.Get) until it is
// ACTIVE, for at most two minutes.
func (s *fileStore) UploadFile(ctx context.Context, f keel.FilePart) (keel.ProviderFile, error) {
	if !f.IsInline() {
		return keel.ProviderFile{}, fmt.Errorf("google: upload file %q: %w", f.Filename, keel.ErrNotInline)
	}
	open, size, err := inline.Reader(f)
	if err != nil {
		return keel.ProviderFile{}, fmt.Errorf("google: upload file %q: %w", f.Filename, err)
	}
	mediaType := inline.OrOctetStream(inline.MediaType(f))
	uploadURL, err := s.start(ctx, f.Filename, mediaType, size)
	if err != nil {
		return keel.ProviderFile{}, err
	}
	file, err := s.send(ctx, uploadURL, open, size)
	if err != nil {
		return keel.ProviderFile{}, err
	}
	if file.State == genai.FileStateProcessing {
		if file, err = s.waitActive(ctx, file); err != nil {
			return keel.ProviderFile{}, err
		}
	}
	if file.State == genai.FileStateFailed || file.URI == "" {
		return keel.ProviderFile{}, fmt.Errorf("google: upload file %q: Gemini kept no usable file (state %s)", f.Filename, cmp.Or(string(file.State), "unknown"))
	}
	expires := file.ExpirationTime
	if expires.IsZero() {
		expires = time.Now().Add(FileLifetime)
	}
	return keel.ProviderFile{Ref: file.URI, MediaType: cmp.Or(file.MIMEType, mediaType), ExpiresAt: expires}, nil
}

// start asks for an upload URL.
func (s *fileStore) start(ctx context.Context, filename, mediaType string, size int64) (string, error) {
	meta := map[string]map[string]string{"file": {}}
	if filename != "" {
		meta["file"]["displayName"] = filename
	}
	body, _ := json.Marshal(meta) // strings only: cannot fail
	req, err := s.request(ctx, s.base.ResolveReference(&url.URL{Path: "upload/v1beta/files"}).String(), bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Goog-Upload-Protocol", "resumable")
	req.Header.Set("X-Goog-Upload-Command", "start")
	req.Header.Set("X-Goog-Upload-Header-Content-Length", strconv.FormatInt(size, 10))
	req.Header.Set("X-Goog-Upload-Header-Content-Type", mediaType)
	resp, err := s.do(ctx, req)
	if err != nil {
		return "", err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	u := resp.Header.Get("X-Goog-Upload-URL")
	if u == "" {
		return "", fmt.Errorf("google: upload file %q: the start of the upload gave no upload URL", filename)
	}
	return s.onBase(u)
}

// onBase returns the upload URL Gemini gave with the scheme and host of
// the base URL, as the SDK does: the key goes with it, and must only go
// where the caller pointed the adapter.
func (s *fileStore) onBase(u string) (string, error) {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return "", fmt.Errorf("google: upload file: the upload URL %q is not a URL", u)
	}
	p.Scheme, p.Host, p.User = s.base.Scheme, s.base.Host, nil
	return p.String(), nil
}

// send uploads the file's bytes and finalizes the upload.
func (s *fileStore) send(ctx context.Context, uploadURL string, open func() io.Reader, size int64) (genai.File, error) {
	req, err := s.request(ctx, uploadURL, open(), size)
	if err != nil {
		return genai.File{}, err
	}
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(open()), nil }
	req.Header.Set("X-Goog-Upload-Command", "upload, finalize")
	req.Header.Set("X-Goog-Upload-Offset", "0")
	resp, err := s.do(ctx, req)
	if err != nil {
		return genai.File{}, err
	}
	defer resp.Body.Close()
	var out struct {
		File genai.File `json:"file"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
		return genai.File{}, fmt.Errorf("google: upload file: reading the answer: %w", err)
	}
	if st := resp.Header.Get("X-Goog-Upload-Status"); st != "" && st != "final" {
		return genai.File{}, fmt.Errorf("google: upload file: upload status %q, not final", st)
	}
	return out.File, nil
}

// waitActive polls the file until Gemini has processed it.
func (s *fileStore) waitActive(ctx context.Context, file genai.File) (genai.File, error) {
	ctx, cancel := context.WithTimeout(ctx, maxProcessingWait)
	defer cancel()
	for delay := 500 * time.Millisecond; file.State == genai.FileStateProcessing; delay = min(2*delay, 5*time.Second) {
		select {
		case <-ctx.Done():
			return file, fmt.Errorf("google: upload file: %s still processing: %w", file.Name, ctx.Err())
		case <-time.After(delay):
		}
		got, err := s.m.client.Files.Get(ctx, file.Name, nil)
		if err != nil {
			return file, callError(ctx, "upload file", &call{x: exchange.New(s.m.timeouts)}, err)
		}
		file = *got
	}
	return file, nil
}

// request is a POST to u with the model's key and headers.
func (s *fileStore) request(ctx context.Context, u string, body io.Reader, size int64) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, body)
	if err != nil {
		return nil, fmt.Errorf("google: upload file: %w", err)
	}
	for k, vs := range s.headers {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Set("x-goog-api-key", s.key)
	req.ContentLength = size
	return req, nil
}

// do sends req under the model's timeouts and turns an error answer into
// a [keel.APICallError], as a model call's.
func (s *fileStore) do(ctx context.Context, req *http.Request) (*http.Response, error) {
	c := &call{x: exchange.New(s.m.timeouts)}
	resp, err := c.x.Do(req, s.hc.Do)
	if err != nil {
		return nil, callError(ctx, "upload file", c, err)
	}
	if resp.StatusCode >= 300 {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Error genai.APIError `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error.Code == 0 {
			e.Error = genai.APIError{Code: resp.StatusCode, Message: strings.TrimSpace(string(body))}
		}
		return nil, callError(ctx, "upload file", c, e.Error)
	}
	return resp, nil
}
