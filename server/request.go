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
	opts     []agent.RunOption
	threadID string
	resource string
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
	} `json:"memory"`
	// ThreadID and ResourceID are the names older clients use.
	ThreadID   string `json:"threadId"`
	ResourceID string `json:"resourceId"`
	MaxSteps   int    `json:"maxSteps"`
	RunID      string `json:"runId"`
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
// agent, read and check the body, and make sure the agent's model can
// answer. false means the answer was written.
func (s *Server) prepareRun(w http.ResponseWriter, r *http.Request) (*agent.Agent, *runRequest, bool) {
	a, ok := s.agent(w, r)
	if !ok {
		return nil, nil, false
	}
	body, e := s.readBody(w, r)
	if e != nil {
		writeRequestError(w, e)
		return nil, nil, false
	}
	req, e := decodeRunRequest(body, s.cfg.MaxFiles)
	if e != nil {
		writeRequestError(w, e)
		return nil, nil, false
	}
	if err := unavailableModel(a); err != nil {
		// Before the run, so that nothing is stored for a turn no model
		// can answer (the client tries a 503 again).
		s.writeRunError(w, r, err)
		return nil, nil, false
	}
	return a, req, true
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
	req := &runRequest{messages: msgs, threadID: wb.ThreadID, resource: wb.ResourceID}
	if wb.Memory != nil {
		id, e := decodeThreadRef(wb.Memory.Thread)
		if e != nil {
			return nil, e
		}
		if id != "" {
			req.threadID = id
		}
		if wb.Memory.Resource != "" {
			req.resource = wb.Memory.Resource
		}
	}
	var issues []Issue
	if req.threadID != "" {
		if !memory.ValidID(req.threadID) {
			issues = append(issues, Issue{Field: "memory.thread", Message: idRule})
		}
		if req.resource == "" {
			issues = append(issues, Issue{Field: "memory.resource", Message: "is required with memory.thread"})
		}
	}
	if req.resource != "" && !memory.ValidID(req.resource) {
		issues = append(issues, Issue{Field: "memory.resource", Message: idRule})
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
	if req.threadID != "" {
		req.opts = append(req.opts, agent.WithThread(req.threadID), agent.WithResource(req.resource))
	} else if req.resource != "" {
		req.opts = append(req.opts, agent.WithResource(req.resource))
	}
	if wb.MaxSteps > 0 {
		req.opts = append(req.opts, agent.WithMaxSteps(wb.MaxSteps))
	}
	if wb.RunID != "" {
		req.opts = append(req.opts, agent.WithRunID(wb.RunID))
	}
	return req, nil
}

const idRule = "must be 1 to 128 of the characters A-Z a-z 0-9 . _ : -"

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

// queryResource is the resource a memory route acts for: the one
// Config.Resource gives, else the resourceId query parameter, else the
// X-Resource-Id header, else the mastra__resourceId of a requestContext
// query parameter (base64 JSON, as @mastra/client-js sends it).
func (s *Server) queryResource(r *http.Request) (string, *requestError) {
	id := ""
	if s.cfg.Resource != nil {
		id = s.cfg.Resource(r)
	}
	if id == "" {
		q := r.URL.Query()
		// Older clients spell it resourceid.
		id = firstOf(q.Get("resourceId"), q.Get("resourceid"))
	}
	if id == "" {
		id = r.Header.Get(ResourceHeader)
	}
	if id == "" {
		id = requestContextResource(r.URL.Query().Get("requestContext"))
	}
	if id == "" {
		return "", badRequest("resourceId is required: add ?resourceId=<owner> or the " + ResourceHeader + " header")
	}
	if !memory.ValidID(id) {
		return "", badRequest("invalid resourceId", Issue{Field: "resourceId", Message: idRule})
	}
	return id, nil
}

// ResourceHeader is the request header that names the resource a memory
// route acts for, for clients that cannot add a resourceId query
// parameter (set it in MastraClient's headers option).
const ResourceHeader = "X-Resource-Id"

func requestContextResource(v string) string {
	if v == "" {
		return ""
	}
	b, err := keel.DecodeBase64(v)
	if err != nil {
		return ""
	}
	var rc map[string]any
	if json.Unmarshal(b, &rc) != nil {
		return ""
	}
	for _, k := range []string{"mastra__resourceId", "resourceId"} {
		if s, ok := rc[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
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
