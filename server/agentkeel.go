package server

import (
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/processor"
)

// wireAgentKeel is keel's own part of an agent object, under "keel", for
// the console and any client that wants to show what the agent is made of;
// Mastra's client passes it through. Fields are only added.
type wireAgentKeel struct {
	// Models are the models the agent calls, in the order it tries them.
	Models []wireAgentModel `json:"models"`
	// Tools are the tool names, in the order given.
	Tools []string `json:"tools"`
	// Sandbox is how the agent's sandboxes are shared: "per-resource",
	// "per-thread", "shared", "none" or "unknown".
	Sandbox string `json:"sandbox"`
	// Memory reports that the agent keeps threads.
	Memory bool `json:"memory"`
	// Processors are the agent's processors in the order their hooks run.
	Processors []wireAgentProcessor `json:"processors"`
}

type wireAgentModel struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
	// Unavailable, when set, is why no call of this model can succeed
	// (no model configured, no API key), in the words of the error every
	// call answers with: they say what to set. A client shows it before
	// anyone sends a message that can only fail.
	Unavailable string `json:"unavailable,omitempty"`
}

// wireAgentProcessor is a processor and the hooks it implements:
// "input", "llm-request", "api-error".
type wireAgentProcessor struct {
	ID    string   `json:"id"`
	Hooks []string `json:"hooks"`
}

// wireAgentOf is the agent as the agent routes answer it: Mastra's
// fields and keel's.
func (s *Server) wireAgentOf(a *agent.Agent) wireAgent {
	w := toWireAgent(a)
	k := s.agentKeel(a)
	w.Keel = &k
	return w
}

func (s *Server) agentKeel(a *agent.Agent) wireAgentKeel {
	cfg := a.Config()
	k := wireAgentKeel{Models: []wireAgentModel{}, Tools: make([]string, 0, len(cfg.Tools)),
		Sandbox: sandboxMode(a), Memory: cfg.Memory != nil}
	models := cfg.Models
	if len(models) == 0 && cfg.Model != nil {
		models = []agent.ModelEntry{{Model: cfg.Model}}
	}
	for _, e := range models {
		w := wireAgentModel{Provider: e.Model.Provider(), ModelID: e.Model.Name()}
		if err := unavailable(e.Model); err != nil {
			w.Unavailable = err.Error()
		}
		k.Models = append(k.Models, w)
	}
	for _, t := range cfg.Tools {
		k.Tools = append(k.Tools, t.Name)
	}
	procs := a.Processors()
	k.Processors = make([]wireAgentProcessor, 0, len(procs))
	for _, p := range procs {
		wp := wireAgentProcessor{ID: p.ID(), Hooks: []string{}}
		if _, ok := p.(processor.InputProcessor); ok {
			wp.Hooks = append(wp.Hooks, "input")
		}
		if _, ok := p.(processor.LLMRequestRewriter); ok {
			wp.Hooks = append(wp.Hooks, "llm-request")
		}
		if _, ok := p.(processor.APIErrorHandler); ok {
			wp.Hooks = append(wp.Hooks, "api-error")
		}
		k.Processors = append(k.Processors, wp)
	}
	return k
}
