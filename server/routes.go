package server

import (
	"encoding/json"
	"net/http"
)

// routes is the server's one route table, in three blocks: Mastra's
// client API, what Mastra Studio's pages call besides it, and keel's own
// routes. The file of each handler is named beside it. Everything goes
// through guard (token, limits, logs; middleware.go).
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()

	// Mastra's client API: what @mastra/client-js calls for agents, runs
	// and threads, in the routes, payloads and stream format of Mastra's
	// server.
	mux.HandleFunc("GET /api/agents", s.listAgents)                          // agents.go
	mux.HandleFunc("GET /api/agents/{id}", s.getAgent)                       // agents.go
	mux.HandleFunc("POST /api/agents/{id}/generate", s.generate)             // generate.go
	mux.HandleFunc("POST /api/agents/{id}/stream", s.stream)                 // stream.go
	mux.HandleFunc("POST /api/memory/threads", s.createThread)               // threads.go
	mux.HandleFunc("GET /api/memory/threads", s.listThreads)                 // threads.go
	mux.HandleFunc("GET /api/memory/threads/{tid}", s.getThread)             // threads.go
	mux.HandleFunc("PATCH /api/memory/threads/{tid}", s.updateThread)        // threads.go
	mux.HandleFunc("DELETE /api/memory/threads/{tid}", s.deleteThread)       // threads.go
	mux.HandleFunc("GET /api/memory/threads/{tid}/messages", s.listMessages) // threads.go

	// Mastra Studio (the mastra CLI's "mastra studio"): its chat, on
	// Mastra's agent signals, and what its pages read besides the client
	// API, with keel's data in the shapes of Mastra's server. What keel
	// has none of (workflows, scorers, workspaces, voice...)
	// is an empty list in the shape Studio reads, never a 404, which
	// Studio shows as a broken page.
	mux.HandleFunc("POST /api/agents/{id}/threads/subscribe", s.subscribeThread)     // studiochat.go
	mux.HandleFunc("POST /api/agents/{id}/send-message", s.sendMessage)              // studiochat.go
	mux.HandleFunc("POST /api/agents/{id}/queue-message", s.sendMessage)             // studiochat.go: every message waits its turn
	mux.HandleFunc("POST /api/agents/{id}/threads/abort", s.abortThread)             // studiochat.go
	mux.HandleFunc("GET /api/auth/capabilities", s.authCapabilities)                 // studio.go
	mux.HandleFunc("GET /api/agents/providers", s.listProviders)                     // studio.go
	mux.HandleFunc("GET /api/memory/status", s.memoryStatus)                         // studio.go
	mux.HandleFunc("GET /api/memory/config", s.memoryConfig)                         // studio.go
	mux.HandleFunc("GET /api/memory/threads/{tid}/working-memory", s.workingMemory)  // studio.go
	mux.HandleFunc("GET /api/tools", s.listTools)                                    // studio.go
	mux.HandleFunc("GET /api/tools/{tool}", s.getTool)                               // toolroutes.go
	mux.HandleFunc("POST /api/tools/{tool}/execute", s.executeTool)                  // toolroutes.go
	mux.HandleFunc("GET /api/agents/{id}/tools/{tool}", s.getAgentTool)              // toolroutes.go
	mux.HandleFunc("POST /api/agents/{id}/tools/{tool}/execute", s.executeAgentTool) // toolroutes.go
	mux.HandleFunc("GET /api/processors", s.listProcessors)                          // studio.go
	mux.HandleFunc("GET /api/system/packages", s.systemPackages)                     // studio.go
	mux.HandleFunc("GET /api/agents/{id}/voice/speakers", s.voiceSpeakers)           // studio.go
	mux.HandleFunc("GET /api/workflows", emptyJSON(`{}`))
	mux.HandleFunc("GET /api/scores/scorers", emptyJSON(`{}`))
	mux.HandleFunc("GET /api/mcp/v0/servers", s.listMCPServers)                           // mcpservers.go
	mux.HandleFunc("GET /api/mcp/v0/servers/{id}", s.getMCPServer)                        // mcpservers.go
	mux.HandleFunc("GET /api/mcp/{server}/tools", s.listMCPServerTools)                   // mcpservertools.go
	mux.HandleFunc("GET /api/mcp/{server}/tools/{tool}", s.getMCPServerTool)              // mcpservertools.go
	mux.HandleFunc("POST /api/mcp/{server}/tools/{tool}/execute", s.executeMCPServerTool) // mcpservertools.go
	mux.HandleFunc("GET /api/workspaces", emptyJSON(`{"workspaces":[]}`))
	mux.HandleFunc("GET /api/channels/platforms", emptyJSON(`[]`))
	mux.HandleFunc("GET /api/experiments/review-summary", emptyJSON(`{"counts":[]}`))
	mux.HandleFunc("GET /api/observability/feedback", emptyJSON(`{"feedback":[],"pagination":{"total":0,"page":0,"perPage":1,"hasMore":false},"deltaCursor":"0"}`))
	mux.HandleFunc("GET /api/editor/builder/settings", emptyJSON(`{"enabled":false,"modelPolicy":{"active":false}}`))
	mux.HandleFunc("GET /api/editor/builder/models/available", emptyJSON(`{"providers":[]}`))

	// keel's own: probes, metrics, the remembered refusals, who the
	// caller is, the files of stored messages and of sandboxes, and the
	// web console, for the console and any client that shows what keel
	// did.
	mux.HandleFunc("GET /health", s.health) // health.go
	mux.HandleFunc("GET /ready", s.ready)   // health.go
	if s.cfg.Metrics != nil {
		mux.HandleFunc("GET "+MetricsPath, s.metrics) // metrics.go
	}
	mux.HandleFunc("GET /api/keel/refusals", s.listRefusals)                                  // refusals.go
	mux.HandleFunc("DELETE /api/keel/refusals", s.forgetRefusals)                             // refusals.go
	mux.HandleFunc("GET /api/keel/caller", s.getCaller)                                       // caller.go
	mux.HandleFunc("GET /api/memory/threads/{tid}/messages/{mid}/files/{n}", s.downloadFile)  // files.go
	mux.HandleFunc("GET /api/memory/threads/{tid}/messages/{mid}/files/{n}/text", s.fileText) // filetext.go
	mux.HandleFunc("GET /api/agents/{id}/sandbox/files", s.listSandboxFiles)                  // sandboxfiles.go
	mux.HandleFunc("GET /api/agents/{id}/sandbox/files/{path...}", s.downloadSandboxFile)     // sandboxfiles.go
	mux.HandleFunc("DELETE /api/agents/{id}/sandbox/files/{path...}", s.deleteSandboxFile)    // sandboxfiles.go
	if s.cfg.MCP != nil {
		mux.Handle(MCPPath, s.cfg.MCP) // package mcpserver, behind the API's token
	}
	if s.cfg.Console != nil {
		mux.Handle("/", s.cfg.Console) // package console
	}
	mux.HandleFunc("/api/", noRoute)
	return s.guard(mux)
}

// emptyJSON answers with body, a fixed JSON value.
func emptyJSON(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, json.RawMessage(body))
	}
}

// noRoute answers an /api path no route takes: 404 in the API's shape,
// never the console's page.
func noRoute(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "no route for "+r.Method+" "+r.URL.Path)
}
