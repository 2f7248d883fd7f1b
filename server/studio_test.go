package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/provider/google/googletest"
)

// The routes of Studio's pages answer keel's data in the shapes of
// Mastra's server; what keel has none of is an empty list, never a 404.
func TestStudioRoutes(t *testing.T) {
	t.Setenv("GOOGLE_GENERATIVE_AI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "set")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "x"})})
	must(e.mem.CreateThread(t.Context(), memory.Thread{ID: "t1", ResourceID: "support"}))
	tests := []struct {
		path, want string
	}{
		{"/api/auth/capabilities", `{"enabled":false,"keel":{"auth":"none"},"login":null}`},
		{"/api/agents/providers", `{"providers":[` +
			`{"id":"anthropic","name":"Anthropic","label":"Anthropic","description":"","envVar":"ANTHROPIC_API_KEY","connected":false,"docUrl":"https://docs.anthropic.com/en/docs/about-claude/models","models":[]},` +
			`{"id":"google","name":"Google","label":"Google","description":"","envVar":["GOOGLE_GENERATIVE_AI_API_KEY","GOOGLE_API_KEY","GEMINI_API_KEY"],"connected":true,"docUrl":"https://ai.google.dev/gemini-api/docs/models","models":[]},` +
			`{"id":"openai","name":"OpenAI","label":"OpenAI","description":"","envVar":"OPENAI_API_KEY","connected":false,"docUrl":"https://platform.openai.com/docs/models","models":[]}]}`},
		{"/api/memory/status?agentId=support", `{"memoryType":"local","result":true}`},
		{"/api/memory/config?agentId=support&requestContext=e30=", `{"config":{"lastMessages":10,"semanticRecall":false,"generateTitle":false,` +
			`"workingMemory":{"enabled":false},"observationalMemory":{"enabled":false}}}`},
		{"/api/memory/threads/none/working-memory?agentId=support&resourceId=support",
			`{"source":"resource","threadExists":false,"workingMemory":null,"workingMemoryTemplate":null}`},
		{"/api/memory/threads/t1/working-memory?agentId=support&resourceId=support",
			`{"source":"resource","threadExists":true,"workingMemory":null,"workingMemoryTemplate":null}`},
		{"/api/memory/threads/t1/working-memory?agentId=support&resourceId=other",
			`{"source":"resource","threadExists":false,"workingMemory":null,"workingMemoryTemplate":null}`},
		{"/api/tools", `{}`},
		{"/api/processors", `{"link-download":{"id":"link-download","name":"link-download","phases":["inputStep"],"agentIds":["support"],"configurations":[],"isWorkflow":false},"prefill-error-handler":{"id":"prefill-error-handler","name":"prefill-error-handler","phases":[],"agentIds":["support"],"configurations":[],"isWorkflow":false},` +
			`"stream-error-retry-processor":{"id":"stream-error-retry-processor","name":"stream-error-retry-processor","phases":[],"agentIds":["support"],"configurations":[],"isWorkflow":false},` +
			`"unsupported-file-handler":{"id":"unsupported-file-handler","name":"unsupported-file-handler","phases":["inputStep","outputStep"],"agentIds":["support"],"configurations":[],"isWorkflow":false}}`},
		{"/api/system/packages", `{"cmsEnabled":false,"isDev":false,"liveKitConnectionRouteEnabled":false,"observabilityEnabled":false,` +
			`"observabilityStorageType":"none","packages":[],"storageType":"memory.InMemory"}`},
		{"/api/workflows", `{}`},
		{"/api/scores/scorers", `{}`},
		{"/api/mcp/v0/servers", `{"servers":[],"total_count":0,"next":null}`},
		{"/api/workspaces", `{"workspaces":[]}`},
		{"/api/channels/platforms", `[]`},
		{"/api/experiments/review-summary", `{"counts":[]}`},
		{"/api/observability/feedback", `{"feedback":[],"pagination":{"total":0,"page":0,"perPage":1,"hasMore":false},"deltaCursor":"0"}`},
		{"/api/editor/builder/settings", `{"enabled":false,"modelPolicy":{"active":false}}`},
		{"/api/editor/builder/models/available", `{"providers":[]}`},
		{"/api/agents/support/voice/speakers", `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, body := e.do("GET", tt.path, nil)
			if status != http.StatusOK || !sameJSON(t, body, tt.want) {
				t.Errorf("Got(GET %s) = %d %s; want 200 %s", tt.path, status, body, tt.want)
			}
		})
	}
	for _, path := range []string{"/api/memory/config?agentId=nobody", "/api/agents/nobody/voice/speakers"} {
		status, body := e.do("GET", path, nil)
		wantError(t, "GET "+path, status, body, http.StatusNotFound, "Agent with id nobody not found")
	}
}

// sameJSON compares two JSON documents by value, ignoring key order.
func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %s: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}

// With auth on, Studio's first call needs no token (it tells only how the
// server is protected); every other route does, and a user's token acts
// for its own resource on the chat routes too.
func TestStudioAuth(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "should not be called"})
	e := usersEnv(t, model)
	alice := bearer(userToken(t, "alice"))
	none := []string{"Authorization", ""}
	tests := []struct {
		name, method, path, body string
		header                   []string
		status                   int
		substr                   string
	}{
		{"capabilities without a token", "GET", "/api/auth/capabilities", "", none, 200, `"auth":"users"`},
		{"providers without a token", "GET", "/api/agents/providers", "", none, 401, "missing token"},
		{"subscribe without a token", "POST", "/api/agents/support/threads/subscribe", `{"resourceId":"alice","threadId":"a"}`, none, 401, "missing token"},
		{"send without a token", "POST", "/api/agents/support/send-message", `{"message":{"contents":"hi"},"resourceId":"alice","threadId":"a"}`, none, 401, "missing token"},
		{"subscribe as bob", "POST", "/api/agents/support/threads/subscribe", `{"resourceId":"bob","threadId":"bob-1"}`, alice, 403, "names bob"},
		{"subscribe to bob's thread", "POST", "/api/agents/support/threads/subscribe", `{"threadId":"bob-1"}`, alice, 404, "Thread not found"},
		{"send to bob's thread", "POST", "/api/agents/support/send-message", `{"message":{"contents":"hi"},"threadId":"bob-1"}`, alice, 404, "Thread not found"},
		{"send as bob", "POST", "/api/agents/support/send-message", `{"message":{"contents":"hi"},"resourceId":"bob","threadId":"x"}`, alice, 403, "names bob"},
		{"send as bob in requestContext", "POST", "/api/agents/support/send-message",
			`{"message":{"contents":"hi"},"threadId":"x","ifIdle":{"streamOptions":{"requestContext":{"mastra__resourceId":"bob"}}}}`, alice, 403, "names bob"},
		{"abort bob's thread", "POST", "/api/agents/support/threads/abort", `{"threadId":"bob-1"}`, alice, 404, "Thread not found"},
		{"working memory of bob's thread", "GET", "/api/memory/threads/bob-1/working-memory?agentId=support", "", alice, 200, `"threadExists":false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do(tt.method, tt.path, tt.body, tt.header...)
			if status != tt.status || !strings.Contains(string(body), tt.substr) {
				t.Errorf("Got(%s) = %d %s; want %d with %q", tt.name, status, body, tt.status, tt.substr)
			}
		})
	}
	if n := model.Calls(); n != 0 {
		t.Errorf("Got(model calls) = %d; want none", n)
	}
	if msgs := storedMessages(t, e.mem, "bob", "bob-1"); len(msgs) != 1 {
		t.Errorf("Got(bob's thread) = %d messages; want it unchanged (1)", len(msgs))
	}
	// alice's own thread, named by the token alone.
	sub := e.subscribe(t, `{"threadId":"alice-1"}`, alice...)
	status, body := e.do("POST", "/api/agents/support/send-message", `{"message":{"contents":"mine"},"threadId":"alice-1"}`, alice...)
	wantStatus(t, "alice's send", status, body, http.StatusOK)
	if got := chunkTypes(sub.turn()); !strings.HasSuffix(got, "finish") {
		t.Errorf("Got(alice's turn) = %s; want it to finish", got)
	}
	msgs := storedMessages(t, e.mem, "alice", "alice-1")
	if len(msgs) != 3 || msgs[1].Text() != "mine" {
		t.Errorf("Got(alice's thread) = %v; want her message stored after the first", texts(msgs))
	}
}

// Bad bodies are 400 and nothing runs.
func TestStudioSendMessageBadInput(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "never"})
	e := newEnv(t, envOptions{model: model})
	tests := []struct{ name, body, substr string }{
		{"no message", `{"resourceId":"r","threadId":"t"}`, "message.contents"},
		{"empty contents", `{"message":{"contents":""},"resourceId":"r","threadId":"t"}`, "contents"},
		{"no thread", `{"message":{"contents":"hi"},"resourceId":"r"}`, "threadId"},
		{"no resource", `{"message":{"contents":"hi"},"threadId":"t"}`, "resourceId is required"},
		{"bad thread id", `{"message":{"contents":"hi"},"resourceId":"r","threadId":"a/b"}`, "threadId"},
		{"bad file", `{"message":{"contents":[{"type":"file","data":"%%%","mediaType":"text/plain"}]},"resourceId":"r","threadId":"t"}`, "data"},
		{"not JSON", `{`, "malformed JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("POST", "/api/agents/support/send-message", tt.body)
			wantError(t, tt.name, status, body, http.StatusBadRequest, tt.substr)
		})
	}
	if model.Calls() != 0 {
		t.Errorf("Got(model calls) = %d; want none", model.Calls())
	}
	status, body := e.do("POST", "/api/agents/nobody/send-message", `{"message":{"contents":"hi"},"resourceId":"r","threadId":"t"}`)
	wantError(t, "unknown agent", status, body, http.StatusNotFound, "Agent with id nobody not found")
}

func texts(msgs []keel.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Text())
	}
	return out
}

// The providers page lists, as a provider's models, those keel's agents
// use.
func TestStudioProvidersModels(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{})
	e := newEnv(t, envOptions{model: model})
	status, body := e.do("GET", "/api/agents/providers", nil)
	var got struct {
		Providers []struct {
			ID     string
			Models []string
		}
	}
	if status != http.StatusOK || json.Unmarshal(body, &got) != nil || len(got.Providers) != 3 {
		t.Fatalf("Got(providers) = %d %s; want keel's three", status, body)
	}
	for _, p := range got.Providers {
		want := "[]"
		if p.ID == "google" {
			want = "[gemini-2.5-flash]"
		}
		if fmt.Sprint(p.Models) != want {
			t.Errorf("Got(%s models) = %v; want %s", p.ID, p.Models, want)
		}
	}
}
