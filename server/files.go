package server

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// fileDataParam reads the messages route's fileData parameter: "false"
// lists the files without their bytes (Size and SHA256 still tell them
// apart), which the console asks for so that a thread of large files loads
// in kilobytes; it then downloads a file's bytes through downloadFile
// when asked. Anything else, or nothing, sends the bytes, as Mastra does.
func fileDataParam(q url.Values) bool { return q.Get("fileData") != "false" }

// describeInline sets the size and digest of a file whose bytes are
// inline. A digest the store gave is used as is; a file without one (an
// in-memory store's) is hashed here.
func describeInline(wf *wireFilePart, p keel.FilePart) {
	if !p.IsInline() {
		return
	}
	data, err := p.InlineData()
	if err != nil {
		return
	}
	n := int64(len(data))
	wf.Size = &n
	if wf.SHA256, err = p.Digest(); err != nil {
		wf.SHA256 = ""
	}
}

// downloadFile answers GET /api/memory/threads/{tid}/messages/{mid}/files/{n}:
// the bytes of the n-th file part (from 0) of a stored message, exactly as
// stored, with its media type. It is a download, never a page: the answer
// is an attachment, the browser may not guess another type (nosniff), and
// the content may run nothing (a sandbox policy), whatever the file holds.
func (s *Server) downloadFile(w http.ResponseWriter, r *http.Request) {
	f, data, ok := s.storedFile(w, r)
	if !ok {
		return
	}
	digest, _ := f.Digest()
	serveAttachment(w, r, data, f.MediaType, f.Filename, digest)
}

// storedFile finds the file of a stored-file route and its inline bytes.
// false means the answer was written.
func (s *Server) storedFile(w http.ResponseWriter, r *http.Request) (keel.FilePart, []byte, bool) {
	mem, resource, tid, ok := s.threadTarget(w, r)
	if !ok {
		return keel.FilePart{}, nil, false
	}
	mid, e := pathID(r, "mid")
	if e != nil {
		writeRequestError(w, e)
		return keel.FilePart{}, nil, false
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 0 {
		writeRequestError(w, badRequest("invalid file index in path", Issue{Field: "n", Message: "must be a non-negative integer"}))
		return keel.FilePart{}, nil, false
	}
	page, err := mem.ListMessages(r.Context(), resource, tid, memory.ListMessagesOptions{})
	if err != nil {
		s.storeError(w, r, err)
		return keel.FilePart{}, nil, false
	}
	f, found := nthFile(page.Messages, mid, n)
	if !found {
		writeError(w, http.StatusNotFound, "message "+mid+" of thread "+tid+" has no file "+strconv.Itoa(n)+": list the thread's messages for its files")
		return keel.FilePart{}, nil, false
	}
	data, err := f.InlineData()
	switch {
	case errors.Is(err, keel.ErrNotInline):
		writeError(w, http.StatusNotFound, "file "+strconv.Itoa(n)+" of message "+mid+" is kept by its URL, not stored: open the URL itself")
		return keel.FilePart{}, nil, false
	case err != nil:
		writeError(w, http.StatusUnprocessableEntity, "file "+strconv.Itoa(n)+" of message "+mid+" holds data that cannot be decoded")
		return keel.FilePart{}, nil, false
	}
	return f, data, true
}

// nthFile returns the n-th file part of the message mid.
func nthFile(msgs []keel.Message, mid string, n int) (keel.FilePart, bool) {
	for _, m := range msgs {
		if m.ID != mid {
			continue
		}
		for _, p := range m.Parts {
			if f, ok := p.(keel.FilePart); ok {
				if n == 0 {
					return f, true
				}
				n--
			}
		}
		return keel.FilePart{}, false
	}
	return keel.FilePart{}, false
}

// serveAttachment answers with data as a download named name. A media type
// that does not parse is sent as application/octet-stream; an empty name
// gets "file". digest, when known, is the ETag.
func serveAttachment(w http.ResponseWriter, r *http.Request, data []byte, mediaType, name, digest string) {
	setAttachmentHeaders(w, mediaType, name, digest)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// setAttachmentHeaders sets the headers of a file sent as an attachment:
// its type, its name, and what keeps a browser from running it.
func setAttachmentHeaders(w http.ResponseWriter, mediaType, name, digest string) {
	h := w.Header()
	h.Set("Content-Type", attachmentType(mediaType))
	h.Set("Content-Disposition", attachmentDisposition(name))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "private, no-cache")
	if digest != "" {
		h.Set("ETag", `"`+digest+`"`)
	}
}

func attachmentType(mediaType string) string {
	mt, params, err := mime.ParseMediaType(mediaType)
	if err != nil || mt == "" {
		return "application/octet-stream"
	}
	if out := mime.FormatMediaType(mt, params); out != "" {
		return out
	}
	return "application/octet-stream"
}

// attachmentDisposition is "attachment" with the file's name, quoted or,
// beyond ASCII, in RFC 2231 form (mime does both); a name it cannot write
// leaves the browser to choose one.
func attachmentDisposition(name string) string {
	if name == "" {
		name = "file"
	}
	if v := mime.FormatMediaType("attachment", map[string]string{"filename": name}); v != "" {
		return v
	}
	return "attachment"
}
