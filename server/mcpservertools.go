package server

import (
	"encoding/json"
	"net/http"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/tool"
)

// The tools of one MCP server, as Mastra's MCP routes and Studio's MCP
// server pages show and run them: /api/mcp/{server}/tools... names a tool
// by the server's own name for it ("echo"), where /api/tools names it as
// the model sees it ("everything_echo"). Only the tools some agent has
// are there: a tool that keel.yaml gives no agent is not offered to
// callers either (a server may hold tools, such as one printing its
// environment, that were left out on purpose).

// wireMCPTool is a server's tool as Mastra's MCP routes show it. ID is
// the tool's name in keel's other tool routes.
type wireMCPTool struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	ToolType    string          `json:"toolType"`
}

// offeredTool is a server's tool that an agent has.
type offeredTool struct {
	name  string // the server's
	agent *agent.Agent
	tool  tool.Tool
}

// offeredTools returns m's tools that an agent has, in the server's
// order, each with the first agent, in the configured order, that has it.
func (s *Server) offeredTools(m MCPServer) []offeredTool {
	var out []offeredTool
	for _, st := range m.ServerTools() {
		if a, t, ok := s.findTool(st.Tool.Name); ok {
			out = append(out, offeredTool{name: st.Name, agent: a, tool: t})
		}
	}
	return out
}

// offeredTool returns the tool of the server named by the path that the
// path's {tool} names, or answers 404.
func (s *Server) offeredTool(w http.ResponseWriter, r *http.Request) (offeredTool, bool) {
	m, ok := s.mcpServer(w, r, "server")
	if !ok {
		return offeredTool{}, false
	}
	name := r.PathValue("tool")
	for _, o := range s.offeredTools(m) {
		if o.name == name {
			return o, true
		}
	}
	writeError(w, http.StatusNotFound, "Tool with ID '"+trimField(name)+"' not found on MCP server '"+m.Status().Name+"'")
	return offeredTool{}, false
}

func (o offeredTool) wire() wireMCPTool {
	d := o.tool.Definition()
	return wireMCPTool{ID: d.Name, Name: o.name, Description: d.Description, InputSchema: rawOrEmpty(d.InputSchema), ToolType: "tool"}
}

// listMCPServerTools answers GET /api/mcp/{server}/tools.
func (s *Server) listMCPServerTools(w http.ResponseWriter, r *http.Request) {
	m, ok := s.mcpServer(w, r, "server")
	if !ok {
		return
	}
	tools := s.offeredTools(m)
	out := struct {
		Tools []wireMCPTool `json:"tools"`
	}{Tools: make([]wireMCPTool, 0, len(tools))}
	for _, o := range tools {
		out.Tools = append(out.Tools, o.wire())
	}
	writeJSON(w, http.StatusOK, out)
}

// getMCPServerTool answers GET /api/mcp/{server}/tools/{tool}.
func (s *Server) getMCPServerTool(w http.ResponseWriter, r *http.Request) {
	if o, ok := s.offeredTool(w, r); ok {
		writeJSON(w, http.StatusOK, o.wire())
	}
}

// executeMCPServerTool answers POST /api/mcp/{server}/tools/{tool}/execute:
// the tool run as POST /api/tools/{id}/execute runs it, its answer under
// "result", as in Mastra.
func (s *Server) executeMCPServerTool(w http.ResponseWriter, r *http.Request) {
	if o, ok := s.offeredTool(w, r); ok {
		s.runTool(w, r, o.agent, o.tool, true)
	}
}
