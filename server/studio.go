package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/openai"
)

// What Mastra Studio's pages read besides the client API (see the route
// table, routes.go), answered with keel's own data in the shapes of
// Mastra's server.

// authCapabilities answers GET /api/auth/capabilities, which Studio asks
// before anything else, without a token (see authenticate): keel has no
// login flow of Studio's, so "enabled" is false; "keel" tells how the API
// is protected, so that the page can say to set the token in Studio's
// request headers. It holds no data.
func (s *Server) authCapabilities(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"enabled": false, "login": nil, "keel": map[string]string{"auth": s.authMode()}})
}

// voiceSpeakers answers GET /api/agents/{id}/voice/speakers: keel has no
// voice, so none, for an agent that exists.
func (s *Server) voiceSpeakers(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.agent(w, r); ok {
		writeJSON(w, http.StatusOK, json.RawMessage(`[]`))
	}
}

// studioProvider is one provider keel can call, as Studio lists them.
type studioProvider struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Label       string   `json:"label"`
	Description string   `json:"description"`
	EnvVar      any      `json:"envVar"` // one name, or the names in the order they are read
	Connected   bool     `json:"connected"`
	DocURL      string   `json:"docUrl"`
	Models      []string `json:"models"`
}

// keelProviders are the providers keel has, each with the variables its
// adapter reads the key from, in the order it reads them.
var keelProviders = []struct {
	id, name, doc string
	env           []string
}{
	{"anthropic", "Anthropic", "https://docs.anthropic.com/en/docs/about-claude/models", []string{anthropic.EnvAPIKey}},
	{"google", "Google", "https://ai.google.dev/gemini-api/docs/models", []string{google.EnvAPIKey, google.EnvGoogleAPIKey, google.EnvGeminiAPIKey}},
	{"openai", "OpenAI", "https://platform.openai.com/docs/models", []string{openai.EnvAPIKey}},
}

// listProviders answers GET /api/agents/providers: keel's three providers,
// whether the server's environment holds a key for each ("connected"; the
// key itself is never shown), and as models the ones keel's agents use,
// fallbacks included.
func (s *Server) listProviders(w http.ResponseWriter, r *http.Request) {
	used := map[string][]string{}
	for _, a := range s.order {
		cfg := a.Config()
		models := []keel.Model{cfg.Model}
		for _, e := range cfg.Models {
			models = append(models, e.Model)
		}
		for _, m := range models {
			if m != nil {
				used[m.Provider()] = appendNew(used[m.Provider()], m.Name())
			}
		}
	}
	out := make([]studioProvider, 0, len(keelProviders))
	for _, p := range keelProviders {
		sp := studioProvider{ID: p.id, Name: p.name, Label: p.name, DocURL: p.doc, Models: used[p.id]}
		if sp.Models == nil {
			sp.Models = []string{}
		}
		sort.Strings(sp.Models)
		sp.EnvVar = p.env[0]
		if len(p.env) > 1 {
			sp.EnvVar = p.env
		}
		for _, e := range p.env {
			if os.Getenv(e) != "" {
				sp.Connected = true
			}
		}
		out = append(out, sp)
	}
	writeJSON(w, http.StatusOK, map[string]any{"providers": out})
}

func appendNew(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// studioAgent is the agent named by the agentId query parameter: nil and
// true when none is named, false when the answer (404) was written.
func (s *Server) studioAgent(w http.ResponseWriter, r *http.Request) (*agent.Agent, bool) {
	if !s.checkAgentParam(w, r) {
		return nil, false
	}
	return s.agents[r.URL.Query().Get("agentId")], true
}

// memoryStatus answers GET /api/memory/status: whether the agent (or,
// with no agentId, the server) keeps threads.
func (s *Server) memoryStatus(w http.ResponseWriter, r *http.Request) {
	a, ok := s.studioAgent(w, r)
	if !ok {
		return
	}
	has := s.cfg.Memory != nil
	if a != nil {
		has = a.Config().Memory != nil
	}
	writeJSON(w, http.StatusOK, map[string]any{"result": has, "memoryType": "local"})
}

type studioMemoryConfig struct {
	// LastMessages is the history window, or false for the whole thread.
	LastMessages        any  `json:"lastMessages"`
	SemanticRecall      bool `json:"semanticRecall"`
	GenerateTitle       bool `json:"generateTitle"`
	WorkingMemory       off  `json:"workingMemory"`
	ObservationalMemory off  `json:"observationalMemory"`
}

type off struct {
	Enabled bool `json:"enabled"`
}

// memoryConfig answers GET /api/memory/config: the agent's history window
// and whether the model titles new threads. keel has no semantic recall,
// working or observational memory.
func (s *Server) memoryConfig(w http.ResponseWriter, r *http.Request) {
	a, ok := s.studioAgent(w, r)
	if !ok {
		return
	}
	c := studioMemoryConfig{LastMessages: agent.DefaultLastMessages}
	if a != nil {
		cfg := a.Config()
		c.LastMessages, c.GenerateTitle = cfg.LastMessages, cfg.GenerateTitle
		if cfg.LastMessages == agent.AllMessages {
			c.LastMessages = false
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"config": c})
}

// workingMemory answers GET /api/memory/threads/{tid}/working-memory:
// keel keeps no working memory, so it is null, as Mastra answers for an
// agent without it; threadExists tells whether the caller's resource has
// the thread (Studio asks with the id "none" before a thread exists).
func (s *Server) workingMemory(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.studioAgent(w, r); !ok {
		return
	}
	exists := false
	if mem := s.cfg.Memory; mem != nil {
		tid := r.PathValue("tid")
		named, e := namedResource(r)
		var resource string
		if e == nil {
			resource, e = callerOf(r).actFor(named)
		}
		if e != nil {
			writeRequestError(w, e)
			return
		}
		if memory.ValidID(tid) {
			owner, err := mem.ThreadOwner(r.Context(), tid)
			switch {
			case err == nil:
				exists = resource == "" || owner == resource
			case !errors.Is(err, memory.ErrNotFound) && !errors.Is(err, memory.ErrInvalid):
				s.storeError(w, r, err)
				return
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"workingMemory": nil, "source": "resource",
		"workingMemoryTemplate": nil, "threadExists": exists})
}

type studioTool struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	// InputSchema is the JSON schema serialised as Mastra's server does:
	// a superjson string {"json": schema}.
	InputSchema string `json:"inputSchema,omitempty"`
}

// listTools answers GET /api/tools: every agent's tools, keyed by name
// (the first agent's, when two agents have a tool of one name).
func (s *Server) listTools(w http.ResponseWriter, r *http.Request) {
	out := map[string]studioTool{}
	for _, a := range s.order {
		for _, t := range a.Tools() {
			if _, seen := out[t.Name]; !seen {
				out[t.Name] = studioToolOf(t)
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

type studioProcessor struct {
	ID             string                `json:"id"`
	Name           string                `json:"name"`
	Phases         []string              `json:"phases"`
	AgentIDs       []string              `json:"agentIds"`
	Configurations []studioProcessorConf `json:"configurations"`
	IsWorkflow     bool                  `json:"isWorkflow"`
}

type studioProcessorConf struct {
	AgentID string `json:"agentId"`
	Type    string `json:"type"`
}

// listProcessors answers GET /api/processors: the processors keel's
// agents run, keyed by ID, with the phases Mastra knows that each acts
// in: "input" (a turn's new messages), "inputStep" (each model call's
// request), "outputStep" (each model answer). An error processor, which
// acts when a model call fails, has no Mastra phase and is listed with
// none, attached to no input or output.
func (s *Server) listProcessors(w http.ResponseWriter, r *http.Request) {
	out := map[string]*studioProcessor{}
	for _, a := range s.order {
		inputs := map[processor.Processor]bool{}
		for _, p := range a.Config().InputProcessors {
			inputs[p] = true
		}
		for _, p := range a.Processors() {
			sp := out[p.ID()]
			if sp == nil {
				sp = &studioProcessor{ID: p.ID(), Name: p.ID(), Phases: phases(p), AgentIDs: []string{}, Configurations: []studioProcessorConf{}}
				out[p.ID()] = sp
			}
			sp.AgentIDs = appendNew(sp.AgentIDs, a.ID())
			if inputs[p] {
				sp.Configurations = append(sp.Configurations, studioProcessorConf{AgentID: a.ID(), Type: "input"})
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func phases(p processor.Processor) []string {
	out := []string{}
	if _, ok := p.(processor.InputProcessor); ok {
		out = append(out, "input")
	}
	if _, ok := p.(processor.LLMRequestRewriter); ok {
		out = append(out, "inputStep")
	}
	if _, ok := p.(processor.ResponseObserver); ok {
		out = append(out, "outputStep")
	}
	return out
}

// systemPackages answers GET /api/system/packages: keel runs no Mastra
// packages; storageType names the store keel serves from.
func (s *Server) systemPackages(w http.ResponseWriter, r *http.Request) {
	storage := "none"
	if s.cfg.Memory != nil {
		storage = storeName(s.cfg.Memory)
	}
	writeJSON(w, http.StatusOK, map[string]any{"packages": []struct{}{}, "isDev": false, "cmsEnabled": false,
		"liveKitConnectionRouteEnabled": false, "observabilityEnabled": false, "storageType": storage,
		"observabilityStorageType": "none"})
}

// storeName names a store by its Go type, such as "sqlitestore.Store".
func storeName(m memory.Store) string {
	return strings.TrimPrefix(fmt.Sprintf("%T", m), "*")
}
