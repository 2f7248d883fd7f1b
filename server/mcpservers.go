package server

import (
	"net/http"
	"time"

	"github.com/keel-go/keel/mcp/mcpclient"
)

// MCPServer is an MCP server the agents take tools from, as the
// /api/mcp routes show it: an *mcpclient.Client is one.
type MCPServer interface {
	Status() mcpclient.Status
	// ServerTools are the tools the server offers now, under its own
	// names and the model's.
	ServerTools() []mcpclient.ServerTool
}

// wireMCPServer is a server as Mastra's registry routes show it, with
// keel's status of it beside.
type wireMCPServer struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Description   string            `json:"description,omitempty"`
	VersionDetail wireVersionDetail `json:"version_detail"`
	Keel          mcpclient.Status  `json:"keel"`
}

type wireVersionDetail struct {
	Version     string `json:"version"`
	ReleaseDate string `json:"release_date"`
	IsLatest    bool   `json:"is_latest"`
}

type wireMCPServers struct {
	Servers    []wireMCPServer `json:"servers"`
	TotalCount int             `json:"total_count"`
	Next       *string         `json:"next"`
}

// toWireMCPServer is m as the registry routes show it. A server's version
// is what it said at its handshake; release_date, which MCP does not
// tell, is the zero time.
func toWireMCPServer(m MCPServer) wireMCPServer {
	st := m.Status()
	if st.Tools == nil {
		st.Tools = []string{}
	}
	ws := wireMCPServer{ID: st.Name, Name: st.Name, Keel: st,
		VersionDetail: wireVersionDetail{Version: st.ServerVersion, ReleaseDate: time.Time{}.Format(time.RFC3339), IsLatest: true}}
	if st.ServerName != "" {
		ws.Description = st.ServerName + " over " + st.Transport
	}
	return ws
}

// listMCPServers answers GET /api/mcp/v0/servers: the configured MCP
// servers, in Config.MCPServers' order, all on one page.
func (s *Server) listMCPServers(w http.ResponseWriter, r *http.Request) {
	out := wireMCPServers{Servers: make([]wireMCPServer, 0, len(s.cfg.MCPServers))}
	for _, m := range s.cfg.MCPServers {
		out.Servers = append(out.Servers, toWireMCPServer(m))
	}
	out.TotalCount = len(out.Servers)
	writeJSON(w, http.StatusOK, out)
}

// mcpServer returns the configured server whose name is the path's
// value, or answers 404 in Mastra's words.
func (s *Server) mcpServer(w http.ResponseWriter, r *http.Request, param string) (MCPServer, bool) {
	id := r.PathValue(param)
	for _, m := range s.cfg.MCPServers {
		if m.Status().Name == id {
			return m, true
		}
	}
	writeError(w, http.StatusNotFound, "MCP server with ID '"+trimField(id)+"' not found")
	return nil, false
}

// getMCPServer answers GET /api/mcp/v0/servers/{id}: one server, as
// listed. ?version= names the version wanted: another is 404, as in
// Mastra.
func (s *Server) getMCPServer(w http.ResponseWriter, r *http.Request) {
	m, ok := s.mcpServer(w, r, "id")
	if !ok {
		return
	}
	ws := toWireMCPServer(m)
	if v := r.URL.Query().Get("version"); v != "" && v != ws.VersionDetail.Version {
		writeError(w, http.StatusNotFound, "MCP server with ID '"+ws.ID+"' found, but not version '"+trimField(v)+
			"'. Available version: "+ws.VersionDetail.Version)
		return
	}
	writeJSON(w, http.StatusOK, ws)
}
