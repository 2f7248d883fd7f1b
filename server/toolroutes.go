package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
)

// The tool routes run one tool of an agent outside a model's run, as
// Mastra's client (Tool.execute, Agent.executeTool) and Studio's Tools page
// do: the built-in sandbox tools and those of MCP servers alike. A call
// acts for a resource as a run would: a user's token runs sandbox tools in
// its own resource's sandbox only, and a sandbox shared beyond one resource
// is not open to users (it may hold other users' files).

// findTool returns the first agent, in the configured order, that has a
// tool named name, and the tool.
func (s *Server) findTool(name string) (*agent.Agent, tool.Tool, bool) {
	for _, a := range s.order {
		if t, ok := toolOf(a, name); ok {
			return a, t, true
		}
	}
	return nil, tool.Tool{}, false
}

// toolOf returns a's tool named name, as a run starting now would have it.
func toolOf(a *agent.Agent, name string) (tool.Tool, bool) {
	for _, t := range a.Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return tool.Tool{}, false
}

// toolNotFound answers a tool name nothing has, in Mastra's words.
func toolNotFound(w http.ResponseWriter, name string) {
	writeError(w, http.StatusNotFound, "Tool not found: "+trimField(name))
}

// studioToolOf is t as GET /api/tools lists it.
func studioToolOf(t tool.Tool) studioTool {
	d := t.Definition()
	st := studioTool{ID: d.Name, Description: d.Description}
	if schema := rawOrNil(d.InputSchema); schema != nil {
		b, _ := json.Marshal(map[string]json.RawMessage{"json": schema})
		st.InputSchema = string(b)
	}
	return st
}

// getTool answers GET /api/tools/{tool}.
func (s *Server) getTool(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("tool")
	_, t, ok := s.findTool(name)
	if !ok {
		toolNotFound(w, name)
		return
	}
	writeJSON(w, http.StatusOK, studioToolOf(t))
}

// getAgentTool answers GET /api/agents/{id}/tools/{tool}.
func (s *Server) getAgentTool(w http.ResponseWriter, r *http.Request) {
	a, ok := s.agent(w, r)
	if !ok {
		return
	}
	t, ok := toolOf(a, r.PathValue("tool"))
	if !ok {
		toolNotFound(w, r.PathValue("tool"))
		return
	}
	writeJSON(w, http.StatusOK, studioToolOf(t))
}

// executeTool answers POST /api/tools/{tool}/execute: the tool of the
// first agent that has it.
func (s *Server) executeTool(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("tool")
	a, t, ok := s.findTool(name)
	if !ok {
		toolNotFound(w, name)
		return
	}
	s.runTool(w, r, a, t, false)
}

// executeAgentTool answers POST /api/agents/{id}/tools/{tool}/execute.
func (s *Server) executeAgentTool(w http.ResponseWriter, r *http.Request) {
	a, ok := s.agent(w, r)
	if !ok {
		return
	}
	t, ok := toolOf(a, r.PathValue("tool"))
	if !ok {
		toolNotFound(w, r.PathValue("tool"))
		return
	}
	s.runTool(w, r, a, t, false)
}

// wireToolBody is the body of an execute route, as Mastra's client sends
// it: the tool's input under data.
type wireToolBody struct {
	Data           json.RawMessage `json:"data"`
	RequestContext map[string]any  `json:"requestContext"`
}

// runTool runs t of agent a with the request's input and answers with the
// tool's output as JSON, as Mastra's server does, under "result" when
// inResult is set (Mastra's MCP routes). A tool that fails is 500 with
// its error, as in Mastra.
func (s *Server) runTool(w http.ResponseWriter, r *http.Request, a *agent.Agent, t tool.Tool, inResult bool) {
	body, e := s.readBody(w, r)
	var in wireToolBody
	if e == nil {
		e = decodeJSON(body, &in)
	}
	if e == nil {
		data := strings.TrimSpace(string(in.Data))
		if data == "" || data == "null" {
			e = badRequest(`Argument "data" is required: send {"data": {...}}, the tool's input`)
		} else if !strings.HasPrefix(data, "{") {
			e = badRequest("invalid request body", Issue{Field: "data", Message: "must be a JSON object, the tool's input"})
		}
	}
	var resource, thread string
	if e == nil {
		var named string
		if named, e = namedResource(r); e == nil {
			resource, e = callerOf(r).actFor(named, contextResource(in.RequestContext))
		}
	}
	if e == nil {
		thread = firstOf(r.URL.Query().Get("threadId"), contextThread(in.RequestContext))
		if thread != "" && !memory.ValidID(thread) {
			e = badRequest("invalid threadId", Issue{Field: "threadId", Message: idRule})
		}
	}
	if e != nil {
		writeRequestError(w, e)
		return
	}
	if thread != "" && s.cfg.Memory != nil {
		// A thread of another resource is not found, as in the thread
		// routes, so that nothing about it shows.
		if _, err := s.cfg.Memory.GetThread(r.Context(), resource, thread); err != nil {
			s.storeError(w, r, err)
			return
		}
	}
	call := tool.Call{
		ID: "call_" + memory.NewID(), Input: in.Data,
		AgentID: a.ID(), ThreadID: thread, ResourceID: resource,
		Sandbox: s.toolSandbox(a, callerOf(r), resource, thread),
	}
	out, err := safeExecute(r.Context(), t, call)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client went away; the guard logs it
		}
		writeError(w, http.StatusInternalServerError, "tool "+t.Name+" failed: "+err.Error())
		return
	}
	answer, err := toolAnswer(out)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "tool "+t.Name+" returned a result that is not JSON: "+err.Error())
		return
	}
	if inResult {
		writeJSON(w, http.StatusOK, struct {
			Result json.RawMessage `json:"result"`
		}{answer})
		return
	}
	writeJSON(w, http.StatusOK, answer)
}

// wireToolFiles is the answer of a tool whose result carries files (an
// MCP tool's image, audio or embedded file): Output is what the model
// reads, Files the files, each a file part as stored messages hold them
// (a data: URL of the bytes in base64, its media type and its name).
type wireToolFiles struct {
	Output json.RawMessage `json:"output"`
	Files  []wireFilePart  `json:"files"`
}

// toolAnswer is the JSON a tool route answers for out, a tool's result:
// its output alone, or with its files (wireToolFiles).
func toolAnswer(out any) (json.RawMessage, error) {
	var files []keel.FilePart
	switch res := out.(type) {
	case tool.Result:
		out, files = res.Output, res.Files
	case *tool.Result:
		out = nil
		if res != nil {
			out, files = res.Output, res.Files
		}
	}
	b, ok := out.(json.RawMessage)
	if !ok || !json.Valid(b) {
		var err error
		if b, err = json.Marshal(out); err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return b, nil
	}
	wf := wireToolFiles{Output: b, Files: make([]wireFilePart, len(files))}
	for i, f := range files {
		wf.Files[i] = toWireFile(f, true)
	}
	return json.Marshal(wf)
}

// safeExecute runs t, a panic becoming an error as in a run.
func safeExecute(ctx context.Context, t tool.Tool, call tool.Call) (out any, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("tool panicked: %v", v)
		}
	}()
	return t.Execute(ctx, call)
}

// errToolSandbox is why a tool call outside a run has no sandbox.
var errToolSandbox = errors.New("server: tool sandbox")

// toolSandbox returns the sandbox resolver of a tool call outside a run:
// the sandbox a run of a for resource and thread would have, refused
// where a run would not be given it.
func (s *Server) toolSandbox(a *agent.Agent, c caller, resource, thread string) func(context.Context) (workspace.Sandbox, error) {
	return func(ctx context.Context) (workspace.Sandbox, error) {
		mode := sandboxMode(a)
		switch {
		case mode == sandboxNone:
			return nil, fmt.Errorf("%w: agent %s has no sandbox: %w", errToolSandbox, a.ID(), workspace.ErrNoSandbox)
		case (mode == sandboxPerResource || mode == sandboxPerThread) && resource == "":
			return nil, fmt.Errorf("%w: the sandbox is per resource: name one (?resourceId=<owner>, the %s header or the requestContext's resourceId)", errToolSandbox, ResourceHeader)
		case !c.trusted() && mode != sandboxPerResource && mode != sandboxPerThread:
			return nil, fmt.Errorf("%w: agent %s's sandbox is %s: it may hold other users' files, so a user's token may not run tools in it", errToolSandbox, a.ID(), mode)
		case mode == sandboxPerThread && thread == "":
			return nil, fmt.Errorf("%w: agent %s has a sandbox per thread: add ?threadId=<thread>", errToolSandbox, a.ID())
		}
		return a.Config().Workspace.Sandbox(ctx, workspace.Scope{AgentID: a.ID(), ThreadID: thread, ResourceID: resource})
	}
}

// contextThread is the thread a Mastra requestContext names.
func contextThread(rc map[string]any) string {
	for _, k := range []string{"mastra__threadId", "threadId"} {
		if s, ok := rc[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}
