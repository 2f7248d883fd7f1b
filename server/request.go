package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
)

// runRequest is a generate or stream body, decoded and checked.
type runRequest struct {
	messages []keel.Message
	threadID string
	// named are the resources the body names, in order of precedence
	// (memory.resource, resourceId, requestContext.mastra__resourceId);
	// resource is the one the run acts for, once bound to the caller.
	named    []string
	resource string
	maxSteps int
	runID    string
	// lastMessages is memory.options.lastMessages: 0 for the agent's
	// window, agent.AllMessages for the whole thread.
	lastMessages int
	// newThread says the turn's lock was taken for a thread found missing
	// (see Server.lockTurn).
	newThread bool
}

// options are the run options of the request.
func (req *runRequest) options() []agent.RunOption {
	var opts []agent.RunOption
	if req.threadID != "" {
		opts = append(opts, agent.WithThread(req.threadID))
	}
	if req.resource != "" {
		opts = append(opts, agent.WithResource(req.resource))
	}
	if req.maxSteps > 0 {
		opts = append(opts, agent.WithMaxSteps(req.maxSteps))
	}
	if req.runID != "" {
		opts = append(opts, agent.WithRunID(req.runID))
	}
	if req.lastMessages != 0 {
		opts = append(opts, agent.WithLastMessages(req.lastMessages))
	}
	if req.newThread {
		opts = append(opts, agent.WithNewThread())
	}
	return opts
}

// wireRunBody is the JSON of a generate or stream body. Options keel does
// not know are ignored, as Mastra ignores those it does not use.
type wireRunBody struct {
	// Messages and the thread are decoded as generic JSON values, so that
	// a body holding megabytes of file data is scanned once, not once per
	// nesting level.
	Messages any `json:"messages"`
	Memory   *struct {
		Thread   any    `json:"thread"`
		Resource string `json:"resource"`
		Options  *struct {
			// LastMessages is a number or false.
			LastMessages any `json:"lastMessages"`
		} `json:"options"`
	} `json:"memory"`
	// ThreadID and ResourceID are the names older clients use.
	ThreadID       string         `json:"threadId"`
	ResourceID     string         `json:"resourceId"`
	MaxSteps       int            `json:"maxSteps"`
	RunID          string         `json:"runId"`
	RequestContext map[string]any `json:"requestContext"`
}

// decodeJSON decodes body into v, answering a malformed body with a 400.
func decodeJSON(body []byte, v any) *requestError {
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("request body is empty: send a JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			if typeErr.Field == "" {
				return badRequest("request body must be a JSON object, not " + typeErr.Value)
			}
			return badRequest("invalid request body", Issue{Field: typeErr.Field, Message: "must be " + typeErr.Type.String() + ", not " + typeErr.Value})
		}
		return badRequest("malformed JSON body: " + err.Error())
	}
	return nil
}

// prepareRun is what generate and stream do before the run: find the
// agent, read and check the body, bind the run to the caller's resource,
// and make sure the agent's model can answer. false means the answer was
// written.
func (s *Server) prepareRun(w http.ResponseWriter, r *http.Request) (*agent.Agent, *runRequest, bool) {
	a, ok := s.agent(w, r)
	if !ok {
		return nil, nil, false
	}
	body, e := s.readBody(w, r)
	if e == nil {
		var req *runRequest
		if req, e = decodeRunRequest(body, s.cfg.MaxFiles); e == nil {
			e = bindResource(r, req)
		}
		if e == nil {
			if err := unavailableModel(a); err != nil {
				// Before the run, so that nothing is stored for a turn no
				// model can answer (the client tries a 503 again).
				s.writeRunError(w, r, err)
				return nil, nil, false
			}
			return a, req, true
		}
	}
	writeRequestError(w, e)
	return nil, nil, false
}

// bindResource sets the resource the run acts for (see actFor): the
// caller's own for a user, else the first the body or the X-Resource-Id
// header names. A run in a thread needs one.
func bindResource(r *http.Request, req *runRequest) *requestError {
	header := r.Header.Get(ResourceHeader)
	if header != "" && !memory.ValidID(header) {
		return badRequest("invalid request", Issue{Field: ResourceHeader, Message: idRule})
	}
	res, e := callerOf(r).actFor(append(req.named, header)...)
	if e != nil {
		return e
	}
	if req.threadID != "" && res == "" {
		return badRequest("invalid request body", Issue{Field: "memory.resource", Message: "is required with memory.thread"})
	}
	req.resource = res
	return nil
}

// decodeRunRequest checks a generate or stream body completely before the
// agent runs, so that a bad request stores nothing. maxFiles < 0 means no
// limit on the number of files.
func decodeRunRequest(body []byte, maxFiles int) (*runRequest, *requestError) {
	var wb wireRunBody
	body, l := liftStrings(body)
	if e := decodeJSON(body, &wb); e != nil {
		return nil, e
	}
	wb.Messages = l.restore(wb.Messages)
	wb.ThreadID, wb.ResourceID, wb.RunID = l.restoreString(wb.ThreadID), l.restoreString(wb.ResourceID), l.restoreString(wb.RunID)
	if wb.Memory != nil {
		wb.Memory.Thread = l.restore(wb.Memory.Thread)
		wb.Memory.Resource = l.restoreString(wb.Memory.Resource)
	}
	msgs, e := decodeMessages(wb.Messages, maxFiles)
	if e != nil {
		return nil, e
	}
	req := &runRequest{messages: msgs, threadID: wb.ThreadID, maxSteps: wb.MaxSteps, runID: wb.RunID}
	var issues []Issue
	memoryResource := ""
	if wb.Memory != nil {
		memoryResource = wb.Memory.Resource
		id, e := decodeThreadRef(wb.Memory.Thread)
		if e != nil {
			return nil, e
		}
		if id != "" {
			req.threadID = id
		}
		if o := wb.Memory.Options; o != nil {
			var ok bool
			if req.lastMessages, ok = decodeLastMessages(o.LastMessages); !ok {
				issues = append(issues, Issue{Field: "memory.options.lastMessages", Message: "must be a whole number of messages, or false for all of them"})
			}
		}
	}
	req.named = []string{memoryResource, wb.ResourceID, l.restoreString(contextResource(wb.RequestContext))}
	if req.threadID != "" && !memory.ValidID(req.threadID) {
		issues = append(issues, Issue{Field: "memory.thread", Message: idRule})
	}
	for i, n := range req.named {
		if n != "" && !memory.ValidID(n) {
			issues = append(issues, Issue{Field: [...]string{"memory.resource", "resourceId", "requestContext.mastra__resourceId"}[i], Message: idRule})
		}
	}
	if wb.RunID != "" && !memory.ValidID(wb.RunID) {
		issues = append(issues, Issue{Field: "runId", Message: idRule})
	}
	if wb.MaxSteps < 0 {
		issues = append(issues, Issue{Field: "maxSteps", Message: "must not be negative"})
	}
	if len(issues) > 0 {
		return nil, badRequest("invalid request body", issues...)
	}
	return req, nil
}

// decodeLastMessages reads memory.options.lastMessages: a number of
// messages, where 0 (like false) means all of them. Absent is the agent's
// own window (0 here).
func decodeLastMessages(v any) (int, bool) {
	switch v := v.(type) {
	case nil:
		return 0, true
	case bool:
		if v {
			return 0, false
		}
		return agent.AllMessages, true
	case float64:
		if v < 0 || v != float64(int(v)) || v > 1e6 {
			return 0, false
		}
		if v == 0 {
			return agent.AllMessages, true
		}
		return int(v), true
	default:
		return 0, false
	}
}

const idRule = "must be 1 to 128 of the characters A-Z a-z 0-9 . _ : -, and not . or .."

// decodeThreadRef reads memory.thread: an id, or an object {id}.
func decodeThreadRef(v any) (string, *requestError) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		if v == "" {
			return "", badRequest("invalid request body", Issue{Field: "memory.thread", Message: idRule})
		}
		return v, nil
	case map[string]any:
		id, _ := v["id"].(string)
		if id == "" {
			return "", badRequest("invalid request body", Issue{Field: "memory.thread.id", Message: "is required when memory.thread is an object"})
		}
		return id, nil
	default:
		return "", badRequest("invalid request body", Issue{Field: "memory.thread", Message: "must be a thread id or an object {id}"})
	}
}

// pathID returns the path value name, or a 400 for an id outside the
// allowed characters.
func pathID(r *http.Request, name string) (string, *requestError) {
	id := r.PathValue(name)
	if !memory.ValidID(id) {
		return "", badRequest("invalid id in path", Issue{Field: name, Message: idRule})
	}
	return id, nil
}

func trimField(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}
