package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
	"github.com/keel-go/keel/tool"
)

// whoTool answers with whose call it is, and fails when asked to.
var whoTool = tool.Tool{
	Name:        "who",
	Description: "says whose call it is",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"fail":{"type":"boolean"}}}`),
	Execute: func(ctx context.Context, call tool.Call) (any, error) {
		var in struct{ Fail bool }
		if err := json.Unmarshal(call.Input, &in); err != nil {
			return nil, err
		}
		if in.Fail {
			return nil, errors.New("asked to fail")
		}
		_, sbErr := call.Sandbox(ctx)
		return map[string]string{"agent": call.AgentID, "resource": call.ResourceID, "thread": call.ThreadID, "sandbox": sbErr.Error()}, nil
	},
}

// toolsEnv is a server in per-user mode (see usersEnv) whose agent has
// the tools lookup and who, and no sandbox.
func toolsEnv(t *testing.T) *env {
	t.Helper()
	v, err := jwtauth.New(jwtauth.Options{Secret: jwtSecret, Audience: []string{"keel"}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) {
		withTools(lookupTool, whoTool)(c)
		c.Users, c.Token = v, "backend-secret"
	}})
}

// The tool routes of Mastra's client and Studio: each tool of an agent
// is described and run on its own, with the caller's resource; mistakes
// are 4xx before anything runs, a failing tool is reported.
func TestToolRoutes(t *testing.T) {
	e := toolsEnv(t)
	must(e.mem.CreateThread(t.Context(), memory.Thread{ID: "bobs", ResourceID: "bob"}))
	backend, alice := bearer("backend-secret"), bearer(userToken(t, "alice"))
	tests := []struct {
		name, method, path string
		body               any
		header             []string
		status             int
		want               string // in the body
	}{
		{"get tool", "GET", "/api/tools/lookup", nil, backend, 200, `"inputSchema":"{\"json\":{\"type\":\"object\",\"properties\":{\"word\":{\"type\":\"string\"}}}}"`},
		{"get agent tool", "GET", "/api/agents/support/tools/who", nil, alice, 200, `"id":"who"`},
		{"agent lists tools with schemas", "GET", "/api/agents/support", nil, alice, 200, `"who":{"id":"who","description":"says whose call it is","inputSchema":"{\"json\":{\"type\":\"object\"`},
		{"tools list", "GET", "/api/tools", nil, alice, 200, `"who":{"id":"who"`},
		{"execute", "POST", "/api/tools/lookup/execute", `{"data":{"word":"hi"}}`, backend, 200, `{"meaning":"a greeting"}`},
		{"agent execute", "POST", "/api/agents/support/tools/lookup/execute", `{"data":{"word":"hi"}}`, alice, 200, `{"meaning":"a greeting"}`},
		{"trusted names a resource", "POST", "/api/tools/who/execute?resourceId=bob", `{"data":{}}`, backend, 200, `"resource":"bob"`},
		{"trusted names one in requestContext", "POST", "/api/agents/support/tools/who/execute", `{"data":{},"requestContext":{"mastra__resourceId":"carol"}}`, backend, 200, `"resource":"carol"`},
		{"user acts for itself", "POST", "/api/agents/support/tools/who/execute", `{"data":{}}`, alice, 200, `"resource":"alice"`},
		{"no sandbox is the tool's error", "POST", "/api/agents/support/tools/who/execute", `{"data":{}}`, alice, 200, `has no sandbox`},
		{"user names another", "POST", "/api/agents/support/tools/who/execute?resourceId=bob", `{"data":{}}`, alice, 403, "acts for resource alice only"},
		{"user names another in requestContext", "POST", "/api/tools/who/execute", `{"data":{},"requestContext":{"mastra__resourceId":"bob"}}`, alice, 403, "acts for resource alice only"},
		{"another's thread", "POST", "/api/tools/who/execute?threadId=bobs", `{"data":{}}`, alice, 404, "Thread not found"},
		{"unknown tool", "POST", "/api/tools/nope/execute", `{"data":{}}`, backend, 404, "Tool not found: nope"},
		{"unknown agent tool", "GET", "/api/agents/support/tools/nope", nil, backend, 404, "Tool not found"},
		{"unknown tool get", "GET", "/api/tools/nope", nil, backend, 404, "Tool not found"},
		{"unknown agent", "POST", "/api/agents/nobody/tools/who/execute", `{"data":{}}`, backend, 404, "Agent with id nobody not found"},
		{"no data", "POST", "/api/tools/who/execute", `{}`, backend, 400, `Argument \"data\" is required`},
		{"data not an object", "POST", "/api/tools/who/execute", `{"data":[1]}`, backend, 400, "must be a JSON object"},
		{"malformed body", "POST", "/api/tools/who/execute", `{"data":`, backend, 400, "malformed JSON body"},
		{"empty body", "POST", "/api/tools/who/execute", ``, backend, 400, "request body is empty"},
		{"input the tool refuses", "POST", "/api/tools/who/execute", `{"data":{"fail":"yes"}}`, backend, 500, "tool who failed"},
		{"tool error", "POST", "/api/agents/support/tools/who/execute", `{"data":{"fail":true}}`, alice, 500, "tool who failed: asked to fail"},
		{"no token", "POST", "/api/tools/who/execute", `{"data":{}}`, nil, 401, "missing token"},
		{"forged token", "POST", "/api/agents/support/tools/who/execute", `{"data":{}}`, bearer(userToken(t, "alice") + "x"), 401, ""},
		{"no token get", "GET", "/api/tools/who", nil, nil, 401, "missing token"},
		{"no token servers", "GET", "/api/mcp/v0/servers", nil, nil, 401, "missing token"},
		{"servers", "GET", "/api/mcp/v0/servers", nil, alice, 200, `{"servers":[],"total_count":0,"next":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := e.do(tt.method, tt.path, tt.body, tt.header...)
			if status != tt.status || !strings.Contains(string(got), tt.want) {
				t.Errorf("Got(%s %s) = %d %s; want %d with %s", tt.method, tt.path, status, got, tt.status, tt.want)
			}
		})
	}
}
