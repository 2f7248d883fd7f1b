package server

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
)

// DefaultMessagesPerPage is the page size of a thread's messages when the
// request gives none, as in Mastra.
const DefaultMessagesPerPage = 40

// memoryStore answers 501 when the server has no store.
func (s *Server) memoryStore(w http.ResponseWriter) (memory.Store, bool) {
	if s.cfg.Memory == nil {
		writeError(w, http.StatusNotImplemented, "this server has no memory store: start it with storage configured")
		return nil, false
	}
	return s.cfg.Memory, true
}

// checkAgentParam answers 404 for an agentId query parameter naming no
// agent; the parameter is optional.
func (s *Server) checkAgentParam(w http.ResponseWriter, r *http.Request) bool {
	id := r.URL.Query().Get("agentId")
	if id == "" {
		return true
	}
	if !memory.ValidID(id) {
		writeRequestError(w, badRequest("invalid agentId", Issue{Field: "agentId", Message: idRule}))
		return false
	}
	if _, ok := s.agents[id]; !ok {
		writeError(w, http.StatusNotFound, "Agent with id "+trimField(id)+" not found")
		return false
	}
	return true
}

type createThreadBody struct {
	ResourceID string         `json:"resourceId"`
	ThreadID   string         `json:"threadId"`
	Title      string         `json:"title"`
	Metadata   map[string]any `json:"metadata"`
}

// createThread answers POST /api/memory/threads.
func (s *Server) createThread(w http.ResponseWriter, r *http.Request) {
	mem, ok := s.memoryStore(w)
	if !ok || !s.checkAgentParam(w, r) {
		return
	}
	body, e := s.readBody(w, r)
	if e != nil {
		writeRequestError(w, e)
		return
	}
	var b createThreadBody
	if e := decodeJSON(body, &b); e != nil {
		writeRequestError(w, e)
		return
	}
	named, e := namedResource(r)
	if e != nil {
		writeRequestError(w, e)
		return
	}
	resource, e := callerOf(r).actFor(b.ResourceID, named)
	if e == nil && resource == "" {
		e = errResourceRequired
	}
	if e != nil {
		writeRequestError(w, e)
		return
	}
	var issues []Issue
	if !memory.ValidID(resource) {
		issues = append(issues, Issue{Field: "resourceId", Message: idRule})
	}
	if b.ThreadID != "" && !memory.ValidID(b.ThreadID) {
		issues = append(issues, Issue{Field: "threadId", Message: idRule})
	}
	if len(issues) > 0 {
		writeRequestError(w, badRequest("invalid request body", issues...))
		return
	}
	t, err := mem.CreateThread(r.Context(), memory.Thread{ID: b.ThreadID, ResourceID: resource, Title: b.Title, Metadata: b.Metadata})
	switch {
	case errors.Is(err, memory.ErrConflict):
		writeError(w, http.StatusConflict, "Thread "+b.ThreadID+" already exists: choose another threadId")
	case errors.Is(err, memory.ErrInvalid):
		writeRequestError(w, badRequest(err.Error()))
	case err != nil:
		s.storeError(w, r, err)
	default:
		writeJSON(w, http.StatusOK, toWireThread(t))
	}
}

type wireThreadPage struct {
	Threads []wireThread `json:"threads"`
	Total   int          `json:"total"`
	Page    int          `json:"page"`
	PerPage int          `json:"perPage"`
	HasMore bool         `json:"hasMore"`
}

// listThreads answers GET /api/memory/threads: the resource's threads only.
func (s *Server) listThreads(w http.ResponseWriter, r *http.Request) {
	mem, ok := s.memoryStore(w)
	if !ok || !s.checkAgentParam(w, r) {
		return
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
		return
	}
	q := r.URL.Query()
	var opts memory.ListThreadsOptions
	var issues []Issue
	opts.Page = intParam(q.Get("page"), "page", &issues)
	opts.PerPage = intParam(q.Get("perPage"), "perPage", &issues)
	switch f := firstOf(q.Get("orderBy[field]"), q.Get("orderBy")); f {
	case "", "createdAt", "updatedAt":
		opts.OrderBy = f
	default:
		issues = append(issues, Issue{Field: "orderBy[field]", Message: "must be createdAt or updatedAt"})
	}
	switch d := strings.ToUpper(firstOf(q.Get("orderBy[direction]"), q.Get("sortDirection"))); d {
	case "", "DESC":
	case "ASC":
		opts.Ascending = true
	default:
		issues = append(issues, Issue{Field: "orderBy[direction]", Message: "must be ASC or DESC"})
	}
	if len(issues) > 0 {
		writeRequestError(w, badRequest("invalid query", issues...))
		return
	}
	page, err := mem.ListThreads(r.Context(), resource, opts)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	out := wireThreadPage{Threads: make([]wireThread, 0, len(page.Threads)), Total: page.Total,
		Page: page.Page, PerPage: page.PerPage, HasMore: page.HasMore}
	for _, t := range page.Threads {
		out.Threads = append(out.Threads, toWireThread(t))
	}
	writeJSON(w, http.StatusOK, out)
}

// threadTarget reads the thread id of the path and the resource a thread
// route acts for (see actFor). A trusted caller that names no resource
// gets the thread's owner, the thread found by its id alone; a missing
// thread is then answered 404 here.
func (s *Server) threadTarget(w http.ResponseWriter, r *http.Request) (mem memory.Store, resource, tid string, ok bool) {
	mem, ok = s.memoryStore(w)
	if !ok || !s.checkAgentParam(w, r) {
		return nil, "", "", false
	}
	tid, e := pathID(r, "tid")
	var named string
	if e == nil {
		named, e = namedResource(r)
	}
	if e == nil {
		resource, e = callerOf(r).actFor(named)
	}
	if e != nil {
		writeRequestError(w, e)
		return nil, "", "", false
	}
	if resource == "" {
		owner, err := mem.ThreadOwner(r.Context(), tid)
		if err != nil {
			s.storeError(w, r, err)
			return nil, "", "", false
		}
		resource = owner
	}
	return mem, resource, tid, true
}

// getThread answers GET /api/memory/threads/{tid}.
func (s *Server) getThread(w http.ResponseWriter, r *http.Request) {
	mem, resource, tid, ok := s.threadTarget(w, r)
	if !ok {
		return
	}
	t, err := mem.GetThread(r.Context(), resource, tid)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWireThread(t))
}

type wireMessagePage struct {
	Messages   []wireStoredMessage `json:"messages"`
	UIMessages []struct{}          `json:"uiMessages"`
	Total      int                 `json:"total"`
	Page       int                 `json:"page"`
	PerPage    int                 `json:"perPage"`
	HasMore    bool                `json:"hasMore"`
}

// listMessages answers GET /api/memory/threads/{tid}/messages, oldest
// first.
func (s *Server) listMessages(w http.ResponseWriter, r *http.Request) {
	mem, resource, tid, ok := s.threadTarget(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	var issues []Issue
	opts := memory.ListMessagesOptions{PerPage: DefaultMessagesPerPage}
	opts.Page = intParam(q.Get("page"), "page", &issues)
	switch v := q.Get("perPage"); v {
	case "":
	case "false": // Mastra's "every message"
		opts.PerPage = 0
	default:
		opts.PerPage = intParam(v, "perPage", &issues)
	}
	if len(issues) > 0 {
		writeRequestError(w, badRequest("invalid query", issues...))
		return
	}
	page, err := mem.ListMessages(r.Context(), resource, tid, opts)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	perPage := page.PerPage
	if opts.PerPage == 0 {
		perPage = page.Total
	}
	msgs := page.Messages
	if q.Get("includeSystemReminders") != "true" {
		msgs = withoutReminders(msgs)
	}
	writeJSONFor(w, r, http.StatusOK, wireMessagePage{Messages: toWireMessagesData(msgs, tid, resource, fileDataParam(q)),
		Total: page.Total, Page: page.Page, PerPage: perPage, HasMore: page.HasMore})
}

// withoutReminders drops the messages the runtime added itself (such as
// the prefill handler's "continue"), which Mastra's client leaves out
// unless asked with includeSystemReminders=true. Total and paging still
// count them: they are stored messages.
func withoutReminders(msgs []keel.Message) []keel.Message {
	out := msgs[:0:0]
	for _, m := range msgs {
		if m.IsSystemReminder() {
			continue
		}
		out = append(out, m)
	}
	return out
}

type updateThreadBody struct {
	Title    *string        `json:"title"`
	Metadata map[string]any `json:"metadata"`
}

// updateThread answers PATCH /api/memory/threads/{tid}: the title and
// metadata given replace the thread's; those left out are kept.
func (s *Server) updateThread(w http.ResponseWriter, r *http.Request) {
	mem, resource, tid, ok := s.threadTarget(w, r)
	if !ok {
		return
	}
	body, e := s.readBody(w, r)
	if e != nil {
		writeRequestError(w, e)
		return
	}
	var b updateThreadBody
	if e := decodeJSON(body, &b); e != nil {
		writeRequestError(w, e)
		return
	}
	t, err := mem.GetThread(r.Context(), resource, tid)
	if err != nil {
		s.storeError(w, r, err)
		return
	}
	if b.Title != nil {
		t.Title = *b.Title
	}
	if b.Metadata != nil {
		t.Metadata = b.Metadata
	}
	if t, err = mem.UpdateThread(r.Context(), t); err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWireThread(t))
}

// deleteThread answers DELETE /api/memory/threads/{tid}.
func (s *Server) deleteThread(w http.ResponseWriter, r *http.Request) {
	mem, resource, tid, ok := s.threadTarget(w, r)
	if !ok {
		return
	}
	// The thread's uploads go too, from every agent's sandbox.
	if err := agent.DeleteThread(r.Context(), mem, s.order, resource, tid); err != nil {
		s.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"result": "Thread deleted"})
}

// storeError answers a failed store call: another resource's thread is
// "not found", exactly like a missing one.
func (s *Server) storeError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, memory.ErrNotFound):
		writeError(w, http.StatusNotFound, "Thread not found")
	case errors.Is(err, memory.ErrInvalid):
		writeRequestError(w, badRequest(err.Error()))
	default:
		s.writeRunError(w, r, err)
	}
}

// intParam parses a non-negative integer query parameter; "" is 0.
func intParam(v, name string, issues *[]Issue) int {
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		*issues = append(*issues, Issue{Field: name, Message: "must be a non-negative integer"})
		return 0
	}
	return n
}
