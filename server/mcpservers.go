package server

import (
	"net/http"
	"time"

	"github.com/keel-go/keel/mcp/mcpclient"
)

// MCPServer is an MCP server the agents take tools from, as
// GET /api/mcp/v0/servers lists it: an *mcpclient.Client is one.
type MCPServer interface {
	Status() mcpclient.Status
}

// wireMCPServer is a server as Mastra's registry route lists it, with
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

// listMCPServers answers GET /api/mcp/v0/servers: the configured MCP
// servers, in Config.MCPServers' order, all on one page. A server's
// version is what it said at its handshake; release_date, which MCP does
// not tell, is the zero time.
func (s *Server) listMCPServers(w http.ResponseWriter, r *http.Request) {
	out := wireMCPServers{Servers: make([]wireMCPServer, 0, len(s.cfg.MCPServers))}
	for _, m := range s.cfg.MCPServers {
		st := m.Status()
		if st.Tools == nil {
			st.Tools = []string{}
		}
		ws := wireMCPServer{ID: st.Name, Name: st.Name, Keel: st,
			VersionDetail: wireVersionDetail{Version: st.ServerVersion, ReleaseDate: time.Time{}.Format(time.RFC3339), IsLatest: true}}
		if st.ServerName != "" {
			ws.Description = st.ServerName + " over " + st.Transport
		}
		out.Servers = append(out.Servers, ws)
	}
	out.TotalCount = len(out.Servers)
	writeJSON(w, http.StatusOK, out)
}
