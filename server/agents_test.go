package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
)

func TestListAgentsKeepsOrderAndFields(t *testing.T) {
	mem := memory.NewInMemory()
	var agents []*agent.Agent
	for _, id := range []string{"zeta", "alpha", "mid"} {
		a, err := agent.New(agent.Config{ID: id, Instructions: "be " + id, Model: keeltest.NewModel(), Memory: mem})
		if err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.Agents = agents }})
	status, body := e.do("GET", "/api/agents", nil)
	v := wantStatus(t, "GET /api/agents", status, body, http.StatusOK)
	if got, want := strings.Index(string(body), `"zeta"`) < strings.Index(string(body), `"alpha"`) &&
		strings.Index(string(body), `"alpha"`) < strings.Index(string(body), `"mid"`), true; got != want {
		t.Errorf("Got(agent order) = %s; want zeta, alpha, mid", body)
	}
	z, _ := v["zeta"].(map[string]any)
	for field, want := range map[string]any{"name": "zeta", "instructions": "be zeta", "provider": "keeltest",
		"modelId": "scripted", "supportsMemory": true} {
		if z[field] != want {
			t.Errorf("Got(zeta.%s) = %v; want %v", field, z[field], want)
		}
	}
	for _, field := range []string{"tools", "defaultOptions", "description"} {
		if _, ok := z[field]; !ok {
			t.Errorf("Got(zeta.%s) missing; want it present", field)
		}
	}
}

func TestGetAgent(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	tests := []struct {
		path   string
		status int
		check  func(t *testing.T, v map[string]any)
	}{
		{"/api/agents/support", 200, func(t *testing.T, v map[string]any) {
			if v["name"] != "Support Agent" || v["description"] != "answers questions" || v["modelId"] != "scripted" {
				t.Errorf("Got(details) = %v; want Support Agent, answers questions, scripted", v)
			}
		}},
		{"/api/agents/nope", 404, func(t *testing.T, v map[string]any) {
			if v["error"] != "Agent with id nope not found" {
				t.Errorf("Got(error) = %v; want Agent with id nope not found", v["error"])
			}
		}},
		{"/api/agents/bad%20id", 400, func(t *testing.T, v map[string]any) {
			if v["error"] == nil || v["issues"] == nil {
				t.Errorf("Got(error) = %v; want error and issues", v)
			}
		}},
		{"/api/agents/nope/generate", 404, nil}, // GET on a POST route: no such route
		{"/api/nothing", 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, body := e.do("GET", tt.path, nil)
			if status != tt.status {
				t.Fatalf("Got(GET %s) = %d %s; want %d", tt.path, status, body, tt.status)
			}
			if tt.check != nil {
				var v map[string]any
				if err := json.Unmarshal(body, &v); err != nil {
					t.Fatalf("Got(body) = %q: %v", body, err)
				}
				tt.check(t, v)
			}
		})
	}
}

func TestUnknownAgentOnEveryAgentRoute(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	for _, route := range []string{"generate", "stream"} {
		status, body := e.do("POST", "/api/agents/nope/"+route, `{"messages":"hi"}`)
		wantError(t, "POST "+route, status, body, 404, "Agent with id nope not found")
	}
	status, body := e.do("GET", "/api/memory/threads?resourceId=u&agentId=nope", nil)
	wantError(t, "list threads of unknown agent", status, body, 404, "Agent with id nope not found")
}

func TestNewRejectsBadConfig(t *testing.T) {
	a := must(agent.New(agent.Config{ID: "a", Model: keeltest.NewModel()}))
	bad := must(agent.New(agent.Config{ID: "a b", Model: keeltest.NewModel()}))
	tests := []struct {
		name   string
		agents []*agent.Agent
	}{
		{"nil agent", []*agent.Agent{nil}},
		{"duplicate id", []*agent.Agent{a, a}},
		{"id with a space", []*agent.Agent{bad}},
	}
	for _, tt := range tests {
		if _, err := server.New(server.Config{Agents: tt.agents}); err == nil {
			t.Errorf("Got(New with %s) = nil error; want one", tt.name)
		}
	}
}

func TestAuth(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(), token: "s3cret"})
	tests := []struct {
		name, auth string
		status     int
	}{
		{"right token", "Bearer s3cret", 200},
		{"lower-case scheme", "bearer s3cret", 200},
		{"no header", "", 401},
		{"wrong token", "Bearer s3cre", 401},
		{"longer token", "Bearer s3cret0", 401},
		{"basic scheme", "Basic s3cret", 401},
		{"token alone", "s3cret", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.token = ""
			defer func() { e.token = "s3cret" }()
			var h []string
			if tt.auth != "" {
				h = []string{"Authorization", tt.auth}
			}
			for _, path := range []string{"/api/agents", "/api/memory/threads?resourceId=u"} {
				status, body := e.do("GET", path, nil, h...)
				if status != tt.status {
					t.Fatalf("Got(GET %s with %q) = %d %s; want %d", path, tt.auth, status, body, tt.status)
				}
				if status == 401 {
					wantError(t, "401", status, body, 401, "token")
				}
			}
		})
	}
	e.token = ""
	status, body := e.do("POST", "/api/agents/support/generate", `{"messages":"hi"}`)
	wantError(t, "generate without token", status, body, 401, "token")
}
