package googletest

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/keel-go/keel/provider/providertest"
)

// Upload is a file a [Server]'s Files API received.
type Upload struct {
	// Name is the file's resource name ("files/f3"), URI the https URI
	// requests name it by, on the server.
	Name, URI string
	// DisplayName and MIMEType are what the upload's start said.
	DisplayName, MIMEType string
	// Size and SHA256 (lower-case hex) are those of the bytes received.
	Size   int64
	SHA256 string
	// ExpiresAt is the expirationTime the server answered.
	ExpiresAt time.Time
	// Chunks counts the requests that carried its bytes.
	Chunks int
}

// fileAPI is the state of a [Server]'s Files API.
type fileAPI struct {
	mu      sync.Mutex
	ttl     time.Duration
	polls   int // GETs a new file answers PROCESSING to
	next    int
	pending map[string]*pendingUpload // by upload_id
	files   map[string]*storedFile    // by name
	uploads []Upload
}

type pendingUpload struct {
	displayName, mimeType string
	declared              int64
	received              int64
	chunks                int
	sum                   hash.Hash
}

type storedFile struct {
	Upload
	created   time.Time
	pollsLeft int
	deleted   bool
}

// Uploads returns the files the Files API received, in order.
func (s *Server) Uploads() []Upload {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	return append([]Upload(nil), s.files.uploads...)
}

// DeleteFile forgets the file of the URI or resource name given, as Gemini
// does 48 hours after the upload: a request naming it is then answered
// with Gemini's 403 PERMISSION_DENIED "You do not have permission to
// access the File ... or it may not exist.". It reports whether there was
// such a file.
func (s *Server) DeleteFile(uriOrName string) bool {
	name := fileName(uriOrName)
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	f := s.files.files[name]
	if f == nil || f.deleted {
		return false
	}
	f.deleted = true
	return true
}

// SetFileTTL sets how long files uploaded from now on are kept: their
// expirationTime is the upload's time plus ttl. A request naming a file
// whose expirationTime has passed is answered as for a deleted file.
func (s *Server) SetFileTTL(ttl time.Duration) {
	s.files.mu.Lock()
	s.files.ttl = ttl
	s.files.mu.Unlock()
}

// FileGoneMessage is Gemini's 403 PERMISSION_DENIED message for a request
// naming a file it does not keep (expired, deleted, another project's);
// the file's ID follows "File ".
func FileGoneMessage(id string) string {
	return "You do not have permission to access the File " + id + " or it may not exist."
}

// FileGoneBody is the body of that 403.
func FileGoneBody(id string) string { return ErrorBody(403, "PERMISSION_DENIED", FileGoneMessage(id)) }

// PayloadTooLargeBody is Gemini's 400 for a request over its 20 MB limit.
var PayloadTooLargeBody = providertest.GeminiPayload.Reply.Body

// uploadPath is where uploads start; filesPath where files are read.
const (
	uploadPath = "/upload/v1beta/files"
	filesPath  = "/v1beta/files/"
)

// isFilesAPI reports a request for the Files API.
func isFilesAPI(path string) bool {
	return path == uploadPath || strings.HasPrefix(path, filesPath)
}

// fileName is the resource name ("files/abc") of a URI or name.
func fileName(uriOrName string) string {
	if i := strings.Index(uriOrName, "/files/"); i >= 0 {
		return uriOrName[i+1:]
	}
	return uriOrName
}

// answerFiles answers a request of the Files API, the way Gemini's
// resumable protocol does: a start (X-Goog-Upload-Command: start) gives
// an upload URL in X-Goog-Upload-URL; chunks ("upload", the last "upload,
// finalize") at offsets in X-Goog-Upload-Offset fill it; the finalizing
// answer is {"file": {...}} with X-Goog-Upload-Status: final. GET
// /v1beta/files/<id> reads a file.
func (s *Server) answerFiles(req Request) providertest.Reply {
	if req.Header.Get("X-Goog-Api-Key") == "" {
		return providertest.Reply{Status: 403, Body: ErrorBody(403, "PERMISSION_DENIED", PermissionDeniedMessage)}
	}
	q, _ := url.ParseQuery(req.Query)
	fa := s.files
	fa.mu.Lock()
	defer fa.mu.Unlock()
	switch {
	case req.Method == http.MethodGet && strings.HasPrefix(req.Path, filesPath):
		f := fa.files[fileName(req.Path)]
		if f == nil || f.deleted || !time.Now().Before(f.ExpiresAt) {
			return providertest.Reply{Status: 403, Body: FileGoneBody(strings.TrimPrefix(req.Path, filesPath))}
		}
		state := "ACTIVE"
		if f.pollsLeft > 0 {
			f.pollsLeft--
			state = "PROCESSING"
		}
		return providertest.Reply{Body: mustJSON(fileJSON(f, state))}
	case req.Method != http.MethodPost || req.Path != uploadPath:
		return providertest.Reply{Status: 404, Body: ErrorBody(404, "NOT_FOUND", "Method not found.")}
	case req.Header.Get("X-Goog-Upload-Command") == "start":
		if req.Header.Get("X-Goog-Upload-Protocol") != "resumable" {
			return providertest.Reply{Status: 400, Body: ErrorBody(400, "INVALID_ARGUMENT", "Upload protocol must be resumable.")}
		}
		var meta struct {
			File struct {
				DisplayName string `json:"displayName"`
			} `json:"file"`
		}
		_ = json.Unmarshal(req.Body, &meta)
		declared, _ := strconv.ParseInt(req.Header.Get("X-Goog-Upload-Header-Content-Length"), 10, 64)
		fa.next++
		id := strconv.Itoa(fa.next)
		fa.pending[id] = &pendingUpload{displayName: meta.File.DisplayName, declared: declared,
			mimeType: req.Header.Get("X-Goog-Upload-Header-Content-Type"), sum: sha256.New()}
		h := http.Header{}
		h.Set("X-Goog-Upload-URL", s.URL()+uploadPath+"?upload_id="+id+"&upload_protocol=resumable")
		h.Set("X-Goog-Upload-Status", "active")
		return providertest.Reply{Header: h, Body: "{}"}
	}
	p := fa.pending[q.Get("upload_id")]
	cmd := req.Header.Get("X-Goog-Upload-Command")
	offset, err := strconv.ParseInt(req.Header.Get("X-Goog-Upload-Offset"), 10, 64)
	switch {
	case p == nil:
		return providertest.Reply{Status: 404, Body: ErrorBody(404, "NOT_FOUND", "Upload not found.")}
	case !strings.Contains(cmd, "upload") || err != nil || offset != p.received:
		return providertest.Reply{Status: 400, Body: ErrorBody(400, "INVALID_ARGUMENT", fmt.Sprintf("Upload offset %s, want %d.", req.Header.Get("X-Goog-Upload-Offset"), p.received))}
	}
	_, _ = p.sum.Write(req.Body)
	p.received += int64(len(req.Body))
	p.chunks++
	h := http.Header{}
	if !strings.Contains(cmd, "finalize") {
		h.Set("X-Goog-Upload-Status", "active")
		return providertest.Reply{Header: h, Body: "{}"}
	}
	delete(fa.pending, q.Get("upload_id"))
	if p.declared > 0 && p.declared != p.received {
		return providertest.Reply{Status: 400, Body: ErrorBody(400, "INVALID_ARGUMENT", fmt.Sprintf("Upload has %d bytes, %d declared.", p.received, p.declared))}
	}
	id := "f" + strconv.Itoa(len(fa.uploads)+1)
	ttl := fa.ttl
	ttl = cmp.Or(ttl, 48*time.Hour)
	now := time.Now().UTC()
	f := &storedFile{Upload: Upload{Name: "files/" + id, URI: s.URL() + filesPath + id, DisplayName: p.displayName,
		MIMEType: p.mimeType, Size: p.received, SHA256: hex.EncodeToString(p.sum.Sum(nil)), ExpiresAt: now.Add(ttl), Chunks: p.chunks},
		created: now, pollsLeft: fa.polls}
	fa.files[f.Name] = f
	fa.uploads = append(fa.uploads, f.Upload)
	state := "ACTIVE"
	if f.pollsLeft > 0 {
		f.pollsLeft--
		state = "PROCESSING"
	}
	h.Set("X-Goog-Upload-Status", "final")
	return providertest.Reply{Header: h, Body: mustJSON(map[string]any{"file": fileJSON(f, state)})}
}

// fileJSON is a file as the Files API shows it.
func fileJSON(f *storedFile, state string) map[string]any {
	return map[string]any{
		"name": f.Name, "displayName": f.DisplayName, "mimeType": f.MIMEType, "sizeBytes": strconv.FormatInt(f.Size, 10),
		"createTime": f.created.Format(time.RFC3339Nano), "updateTime": f.created.Format(time.RFC3339Nano),
		"expirationTime": f.ExpiresAt.Format(time.RFC3339Nano), "uri": f.URI, "state": state, "source": "UPLOADED",
	}
}

// goneFile returns the ID of the first file of the request's fileData
// parts that names a file of this server it does not keep, or "".
func (s *Server) goneFile(b Body) string {
	s.files.mu.Lock()
	defer s.files.mu.Unlock()
	for _, c := range b.Contents {
		for _, p := range c.Parts {
			if p.FileData == nil || !strings.HasPrefix(p.FileData.FileURI, s.URL()+filesPath) {
				continue
			}
			f := s.files.files[fileName(p.FileData.FileURI)]
			if f == nil || f.deleted || !time.Now().Before(f.ExpiresAt) {
				return strings.TrimPrefix(p.FileData.FileURI, s.URL()+filesPath)
			}
		}
	}
	return ""
}
