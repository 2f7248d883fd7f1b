package server

import (
	"encoding/json"
	"net/http"

	"github.com/keel-go/keel/agent"
)

// wireAgent is an agent as the client lists it. The empty collections are
// there because the client and Mastra's studio read them without checking.
type wireAgent struct {
	ID               string                `json:"id"`
	Name             string                `json:"name"`
	Description      string                `json:"description"`
	Instructions     string                `json:"instructions"`
	Tools            map[string]studioTool `json:"tools"`
	Agents           struct{}              `json:"agents"`
	Workflows        struct{}              `json:"workflows"`
	Skills           []struct{}            `json:"skills"`
	WorkspaceTools   []struct{}            `json:"workspaceTools"`
	InputProcessors  []wireProcessor       `json:"inputProcessors"`
	OutputProcessors []wireProcessor       `json:"outputProcessors"`
	Provider         string                `json:"provider"`
	ModelID          string                `json:"modelId"`
	ModelVersion     string                `json:"modelVersion"`
	SupportsMemory   bool                  `json:"supportsMemory"`
	DefaultOptions   struct{}              `json:"defaultOptions"`
	Source           string                `json:"source"`
	Keel             *wireAgentKeel        `json:"keel,omitempty"`
}

type wireProcessor struct {
	ID string `json:"id"`
}

func toWireAgent(a *agent.Agent) wireAgent {
	cfg := a.Config()
	w := wireAgent{
		ID: a.ID(), Name: cfg.Name, Description: cfg.Description, Instructions: cfg.Instructions,
		Tools:            map[string]studioTool{},
		Skills:           []struct{}{},
		WorkspaceTools:   []struct{}{},
		InputProcessors:  make([]wireProcessor, 0, len(cfg.InputProcessors)),
		OutputProcessors: []wireProcessor{},
		SupportsMemory:   cfg.Memory != nil,
		ModelVersion:     "v2",
		Source:           "code",
	}
	if cfg.Model != nil {
		w.Provider, w.ModelID = cfg.Model.Provider(), cfg.Model.Name()
	}
	// The tools a run starting now has, MCP servers' among them, their
	// schemas serialised as in GET /api/tools (Studio's tool pages parse
	// an agent's as they parse those).
	for _, t := range a.Tools() {
		w.Tools[t.Name] = studioToolOf(t)
	}
	for _, p := range cfg.InputProcessors {
		w.InputProcessors = append(w.InputProcessors, wireProcessor{ID: p.ID()})
	}
	return w
}

func rawOrNil(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return b
}

// listAgents answers GET /api/agents: an object keyed by agent id.
func (s *Server) listAgents(w http.ResponseWriter, r *http.Request) {
	// A map would lose the configured order; the object is written by hand
	// in that order.
	buf := []byte{'{'}
	for i, a := range s.order {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(a.ID())
		v, err := json.Marshal(s.wireAgentOf(a))
		if err != nil {
			writeError(w, http.StatusInternalServerError, "server: encode agent "+a.ID()+": "+err.Error())
			return
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	buf = append(buf, '}')
	writeJSON(w, http.StatusOK, json.RawMessage(buf))
}

// getAgent answers GET /api/agents/{id}.
func (s *Server) getAgent(w http.ResponseWriter, r *http.Request) {
	a, ok := s.agent(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, s.wireAgentOf(a))
}
