package server

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/workspace"
)

// Bounds of the sandbox routes.
const (
	// maxSandboxListing is the most entries a sandbox listing walks; a
	// bigger tree is cut, and the answer says so.
	maxSandboxListing = 10000
	// maxSandboxDownload is the largest sandbox file the download route
	// sends from a sandbox that cannot open a file for streaming
	// ([workspace.FileOpener]): such a file is read whole.
	maxSandboxDownload = 100 << 20
	// maxSandboxDownloads is how many sandbox files one server sends at
	// once. Each streams from its open file through a small buffer, so
	// memory does not follow the files' sizes; the cap bounds the open
	// files and the disk reads that clients can cause.
	maxSandboxDownloads = 4
	// downloadSlotWait is how long a download waits for a slot before it
	// is answered 503.
	downloadSlotWait = 10 * time.Second
)

// downloadSlots caps the sandbox downloads a server sends at once. Its
// zero value is ready.
type downloadSlots struct {
	once  sync.Once
	slots chan struct{}
}

// acquire takes a slot, waiting up to downloadSlotWait; false means none
// came free, or the request ended. Every true is followed by release.
func (d *downloadSlots) acquire(r *http.Request) bool {
	d.once.Do(func() { d.slots = make(chan struct{}, maxSandboxDownloads) })
	select {
	case d.slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(downloadSlotWait)
	defer t.Stop()
	select {
	case d.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-r.Context().Done():
	}
	return false
}

func (d *downloadSlots) release() { <-d.slots }

// The sandbox modes the agent routes show: a [workspace.Sharing], or
// "none" for an agent without a workspace.
const (
	sandboxPerResource = string(workspace.PerResource)
	sandboxPerThread   = string(workspace.PerThread)
	sandboxNone        = "none"
)

// sandboxMode is how the agent's sandboxes are shared, as its workspace
// says: "none" without one.
func sandboxMode(a *agent.Agent) string {
	if m := a.Config().Workspace.Sharing(); m != "" {
		return string(m)
	}
	return sandboxNone
}

// wireSandboxFile is a file of a sandbox listing.
type wireSandboxFile struct {
	Path       string   `json:"path"`
	Size       int64    `json:"size"`
	ModifiedAt jsonTime `json:"modifiedAt"`
}

type wireSandboxListing struct {
	Mode    string            `json:"mode"`
	WorkDir string            `json:"workDir,omitempty"`
	Files   []wireSandboxFile `json:"files"`
	// Truncated reports that the tree has more than the listing walked.
	Truncated bool `json:"truncated"`
}

// sandboxTarget resolves the sandbox a sandbox route acts on: the agent's,
// for the caller's resource and, when the query names one, a thread of
// that resource. false means the answer was written.
func (s *Server) sandboxTarget(w http.ResponseWriter, r *http.Request) (workspace.FileSystem, string, bool) {
	a, ok := s.agent(w, r)
	if !ok {
		return nil, "", false
	}
	ws := a.Config().Workspace
	mode := sandboxMode(a)
	if mode == sandboxNone {
		writeError(w, http.StatusNotFound, "agent "+a.ID()+" has no sandbox")
		return nil, "", false
	}
	named, e := namedResource(r)
	var resource string
	if e == nil {
		resource, e = callerOf(r).actFor(named)
	}
	if e == nil && resource == "" {
		e = errResourceRequired
	}
	if e != nil {
		writeRequestError(w, e)
		return nil, "", false
	}
	if !callerOf(r).trusted() && mode != sandboxPerResource && mode != sandboxPerThread {
		writeError(w, http.StatusForbidden, "agent "+a.ID()+"'s sandbox is "+mode+": it may hold other users' files, so it is not listed per user")
		return nil, "", false
	}
	tid := r.URL.Query().Get("threadId")
	if tid != "" {
		if !memory.ValidID(tid) {
			writeRequestError(w, badRequest("invalid threadId", Issue{Field: "threadId", Message: idRule}))
			return nil, "", false
		}
		mem, ok := s.memoryStore(w)
		if !ok {
			return nil, "", false
		}
		if _, err := mem.GetThread(r.Context(), resource, tid); err != nil {
			s.storeError(w, r, err)
			return nil, "", false
		}
	} else if mode == sandboxPerThread {
		writeRequestError(w, badRequest("agent "+a.ID()+" has a sandbox per thread: add ?threadId=<thread>",
			Issue{Field: "threadId", Message: "is required for a per-thread sandbox"}))
		return nil, "", false
	}
	sb, err := ws.Sandbox(r.Context(), workspace.Scope{AgentID: a.ID(), ThreadID: tid, ResourceID: resource})
	if err != nil {
		s.logger.Error("server: resolve sandbox", "agent", a.ID(), "err", err)
		writeError(w, http.StatusServiceUnavailable, "the sandbox cannot be opened now: "+err.Error())
		return nil, "", false
	}
	fsb, ok := sb.(workspace.FileSystem)
	if !ok {
		writeError(w, http.StatusNotImplemented, "agent "+a.ID()+"'s sandbox cannot read files")
		return nil, "", false
	}
	return fsb, mode, true
}

// listSandboxFiles answers GET /api/agents/{id}/sandbox/files: every
// regular file of the sandbox (uploads and what tools wrote), by path.
// Symbolic links are not followed.
func (s *Server) listSandboxFiles(w http.ResponseWriter, r *http.Request) {
	sb, mode, ok := s.sandboxTarget(w, r)
	if !ok {
		return
	}
	out := wireSandboxListing{Mode: mode, Files: []wireSandboxFile{}}
	if wd, ok := sb.(workspace.WorkDirer); ok {
		out.WorkDir = wd.WorkDir()
	}
	dirs, seen := []string{""}, 0
	for len(dirs) > 0 && !out.Truncated {
		dir := dirs[0]
		dirs = dirs[1:]
		entries, err := sb.ReadDir(r.Context(), dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a sandbox nothing was written to yet
		}
		if err != nil {
			s.sandboxError(w, r, err)
			return
		}
		for _, e := range entries {
			if seen++; seen > maxSandboxListing {
				out.Truncated = true
				break
			}
			p := path.Join(dir, e.Name())
			switch {
			case e.IsDir():
				dirs = append(dirs, p)
			case e.Type().IsRegular():
				info, err := e.Info()
				if err != nil {
					continue // removed meanwhile
				}
				out.Files = append(out.Files, wireSandboxFile{Path: p, Size: info.Size(), ModifiedAt: jsonTime(info.ModTime())})
			}
		}
	}
	sort.Slice(out.Files, func(i, j int) bool { return out.Files[i].Path < out.Files[j].Path })
	writeJSON(w, http.StatusOK, out)
}

// sandboxFilePath resolves the sandbox and the path of a sandbox file
// route. false means the answer was written.
func (s *Server) sandboxFilePath(w http.ResponseWriter, r *http.Request) (workspace.FileSystem, string, bool) {
	sb, _, ok := s.sandboxTarget(w, r)
	if !ok {
		return nil, "", false
	}
	p := r.PathValue("path")
	if p == "" || strings.HasSuffix(p, "/") {
		writeRequestError(w, badRequest("give a file's path after /sandbox/files/", Issue{Field: "path", Message: "must name a file"}))
		return nil, "", false
	}
	return sb, p, true
}

// sandboxFile resolves the sandbox and the path of a sandbox file route,
// and describes what is at the path.
func (s *Server) sandboxFile(w http.ResponseWriter, r *http.Request) (workspace.FileSystem, string, fs.FileInfo, bool) {
	sb, p, ok := s.sandboxFilePath(w, r)
	if !ok {
		return nil, "", nil, false
	}
	info, err := sb.Stat(r.Context(), p)
	if err != nil {
		s.sandboxError(w, r, err)
		return nil, "", nil, false
	}
	return sb, p, info, true
}

// downloadSandboxFile answers GET /api/agents/{id}/sandbox/files/{path...}
// with the file's bytes, as an attachment. A sandbox that can open files
// ([workspace.FileOpener]) streams the one it opened, from that same open
// file (ranges too, when it can seek), so a FIFO is refused rather than
// waited on and a large or sparse file never sits in memory; at most
// maxSandboxDownloads are sent at once.
func (s *Server) downloadSandboxFile(w http.ResponseWriter, r *http.Request) {
	sb, p, ok := s.sandboxFilePath(w, r)
	if !ok {
		return
	}
	op, ok := sb.(workspace.FileOpener)
	if !ok {
		s.downloadWhole(w, r, sb, p)
		return
	}
	if !s.downloads.acquire(r) {
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "too many sandbox files are being downloaded at once: try again shortly")
		return
	}
	defer s.downloads.release()
	f, err := op.OpenFile(r.Context(), p)
	if err != nil {
		s.sandboxError(w, r, err)
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		s.sandboxError(w, r, err)
		return
	}
	setAttachmentHeaders(w, keel.MediaTypeByExtension(path.Ext(p)), path.Base(p), "")
	if rs, ok := f.(io.ReadSeeker); ok {
		http.ServeContent(w, r, "", info.ModTime(), rs)
		return
	}
	// A stream that cannot seek (a container's archive) is sent whole,
	// as long as Stat said and no longer.
	w.Header().Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = io.Copy(w, io.LimitReader(f, info.Size()))
	}
}

// downloadWhole sends a file of a sandbox that cannot open one for
// streaming: it is read whole, so it must be at most maxSandboxDownload.
func (s *Server) downloadWhole(w http.ResponseWriter, r *http.Request, sb workspace.FileSystem, p string) {
	info, err := sb.Stat(r.Context(), p)
	if err != nil {
		s.sandboxError(w, r, err)
		return
	}
	if !info.Mode().IsRegular() {
		writeError(w, http.StatusBadRequest, p+" is not a file")
		return
	}
	if info.Size() > maxSandboxDownload {
		writeError(w, http.StatusRequestEntityTooLarge, p+" is over the 100 MiB this route sends: copy it out of the sandbox with a command")
		return
	}
	data, err := sb.ReadFile(r.Context(), p)
	if err != nil {
		s.sandboxError(w, r, err)
		return
	}
	serveAttachment(w, r, data, keel.MediaTypeByExtension(path.Ext(p)), path.Base(p), "")
}

// deleteSandboxFile answers DELETE /api/agents/{id}/sandbox/files/{path...}.
// A directory is refused: only files are deleted.
func (s *Server) deleteSandboxFile(w http.ResponseWriter, r *http.Request) {
	sb, p, info, ok := s.sandboxFile(w, r)
	if !ok {
		return
	}
	if info.IsDir() {
		writeError(w, http.StatusBadRequest, p+" is a directory: delete its files one by one")
		return
	}
	if err := sb.Remove(r.Context(), p); err != nil {
		s.sandboxError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"result": "File deleted", "path": p})
}

// sandboxError answers a failed sandbox call: a missing file is 404, a
// path out of the sandbox 400.
func (s *Server) sandboxError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		writeError(w, http.StatusNotFound, "no such file in the sandbox")
	case errors.Is(err, workspace.ErrNotRegularFile):
		writeError(w, http.StatusBadRequest, "not a regular file: only files are sent (a directory, a FIFO, a socket or a symbolic link is not)")
	case errors.Is(err, workspace.ErrPathEscapes):
		writeRequestError(w, badRequest("the path leaves the sandbox: give a path relative to it, without ..",
			Issue{Field: "path", Message: "must stay in the sandbox"}))
	default:
		s.logger.Error("server: sandbox", "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "server: sandbox: "+err.Error())
	}
}
