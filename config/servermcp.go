package config

import (
	"strings"

	"github.com/keel-go/keel/mcp/mcpserver"
)

// ServerMCP configures keel serve's MCP endpoint, /mcp (server.mcp).
type ServerMCP struct {
	// AllowedHosts are the host names, besides loopback's, under which
	// /mcp answers a request that reached keel on a loopback address:
	// "keel.example.com" (any port), "*.example.com" (any name below it),
	// an IP address, or "*" (any name). Without them such a request is
	// refused (403), against DNS rebinding: a web page whose name is made
	// to resolve to 127.0.0.1 must not reach the agents of the machine
	// its browser runs on. Name the host a reverse proxy on the same
	// machine forwards to keel. Requests that reached another address are
	// not checked.
	AllowedHosts []string `yaml:"allowedHosts"`
}

// validateServerMCP checks server.mcp; add reports a mistake at a key
// below server.
func validateServerMCP(m ServerMCP, add func(path []any, format string, args ...any)) {
	for i, h := range m.AllowedHosts {
		if err := mcpserver.CheckHost(h); err != nil {
			add([]any{"mcp", "allowedHosts", i}, "%s", strings.TrimPrefix(err.Error(), mcpserver.ErrHost.Error()+": "))
		}
	}
}
