package server_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
)

func TestThreadLifecycle(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(keeltest.Reply{Text: "Hello."})})
	status, body := e.do("POST", "/api/memory/threads?agentId=support", `{"agentId":"support","resourceId":"user-1","title":"T1","metadata":{"a":1}}`)
	th := wantStatus(t, "create thread", status, body, 200)
	id, _ := th["id"].(string)
	if !memory.ValidID(id) || th["title"] != "T1" || th["resourceId"] != "user-1" || th["metadata"].(map[string]any)["a"] != float64(1) {
		t.Fatalf("Got(thread) = %v; want an id, T1, user-1, {a:1}", th)
	}
	for _, f := range []string{"createdAt", "updatedAt"} {
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", th[f].(string)); err != nil {
			t.Errorf("Got(%s) = %v; want ISO-8601 with milliseconds: %v", f, th[f], err)
		}
	}

	status, body = e.do("POST", "/api/agents/support/generate", fmt.Sprintf(`{"memory":{"thread":%q,"resource":"user-1"},"messages":"Say hi"}`, id))
	wantStatus(t, "generate", status, body, 200)

	status, body = e.do("GET", "/api/memory/threads?resourceId=user-1&agentId=support", nil)
	list := wantStatus(t, "list threads", status, body, 200)
	threads, _ := list["threads"].([]any)
	if len(threads) != 1 || threads[0].(map[string]any)["id"] != id || list["total"] != float64(1) ||
		list["page"] != float64(0) || list["perPage"] != float64(100) || list["hasMore"] != false {
		t.Errorf("Got(list) = %v; want the one thread, total 1, page 0, perPage 100, hasMore false", list)
	}

	status, body = e.do("GET", "/api/memory/threads/"+id+"?agentId=support", nil, server.ResourceHeader, "user-1")
	got := wantStatus(t, "get thread", status, body, 200)
	if got["id"] != id || got["title"] != "T1" {
		t.Errorf("Got(thread) = %v; want %s T1", got, id)
	}

	status, body = e.do("GET", "/api/memory/threads/"+id+"/messages?agentId=support&resourceId=user-1", nil)
	page := wantStatus(t, "messages", status, body, 200)
	msgs, _ := page["messages"].([]any)
	if len(msgs) != 2 || page["total"] != float64(2) || page["uiMessages"] != nil || page["hasMore"] != false {
		t.Fatalf("Got(messages page) = %v; want 2 messages, uiMessages null", page)
	}
	first, second := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if first["role"] != "user" || second["role"] != "assistant" || second["content"].(map[string]any)["content"] != "Hello." {
		t.Errorf("Got(messages) = %v; want the question then the answer", msgs)
	}

	status, body = e.do("DELETE", "/api/memory/threads/"+id+"?agentId=support&resourceId=user-1", nil)
	if v := wantStatus(t, "delete", status, body, 200); v["result"] != "Thread deleted" {
		t.Errorf("Got(delete) = %v; want Thread deleted", v)
	}
	status, body = e.do("GET", "/api/memory/threads/"+id+"?resourceId=user-1", nil)
	wantError(t, "get deleted thread", status, body, 404, "Thread not found")
}

// Another resource's thread is answered exactly as a missing one.
func TestThreadOwnership(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	must(e.mem.CreateThread(t.Context(), memory.Thread{ID: "alice-1", ResourceID: "alice", Title: "private"}))
	must(e.mem.SaveMessages(t.Context(), "alice", "alice-1", []keel.Message{keel.UserText("secret")}))
	tests := []struct{ method, path string }{
		{"GET", "/api/memory/threads/alice-1?resourceId=mallory"},
		{"GET", "/api/memory/threads/alice-1/messages?resourceId=mallory"},
		{"DELETE", "/api/memory/threads/alice-1?resourceId=mallory"},
		{"GET", "/api/memory/threads/nobody?resourceId=mallory"},
	}
	for _, tt := range tests {
		status, body := e.do(tt.method, tt.path, nil)
		v := wantError(t, tt.method+" "+tt.path, status, body, 404, "Thread not found")
		if len(v) != 1 {
			t.Errorf("Got(%s %s) = %v; want only the error", tt.method, tt.path, v)
		}
	}
	status, body := e.do("GET", "/api/memory/threads?resourceId=mallory", nil)
	if v := wantStatus(t, "mallory's list", status, body, 200); v["total"] != float64(0) {
		t.Errorf("Got(mallory's threads) = %v; want none", v)
	}
	status, body = e.do("POST", "/api/memory/threads", `{"resourceId":"mallory","threadId":"alice-1"}`)
	wantError(t, "take alice's id", status, body, 409, "already exists")
	if got := storedMessages(t, e.mem, "alice", "alice-1"); len(got) != 1 {
		t.Errorf("Got(alice's thread) = %d messages; want 1, untouched", len(got))
	}
}

func TestThreadBadRequests(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	rc := base64.StdEncoding.EncodeToString([]byte(`{"mastra__resourceId":"bob"}`))
	must(e.mem.CreateThread(t.Context(), memory.Thread{ID: "bob-1", ResourceID: "bob"}))
	tests := []struct {
		name, method, path, body string
		status                   int
		substr                   string
	}{
		{"list without resource", "GET", "/api/memory/threads", "", 400, "resourceId is required"},
		{"illegal thread id", "GET", "/api/memory/threads/bad%20id?resourceId=bob", "", 400, "invalid id"},
		{"illegal thread id, messages", "GET", "/api/memory/threads/a%2Fb/messages?resourceId=bob", "", 400, "invalid id"},
		{"illegal resource id", "GET", "/api/memory/threads/bob-1?resourceId=b%C3%B6b", "", 400, "invalid resourceId"},
		{"bad page", "GET", "/api/memory/threads?resourceId=bob&page=-1", "", 400, "page"},
		{"page 0, the first", "GET", "/api/memory/threads?resourceId=bob&page=0&perPage=0", "", 200, ""},
		{"page 0 of messages", "GET", "/api/memory/threads/bob-1/messages?resourceId=bob&page=0", "", 200, ""},
		{"bad order", "GET", "/api/memory/threads?resourceId=bob&orderBy[field]=title", "", 400, "orderBy"},
		{"bad direction", "GET", "/api/memory/threads?resourceId=bob&orderBy[direction]=up", "", 400, "orderBy"},
		{"create malformed", "POST", "/api/memory/threads", `{"resourceId":`, 400, "malformed JSON"},
		{"create without resource", "POST", "/api/memory/threads", `{"title":"x"}`, 400, "resourceId is required"},
		{"create illegal thread id", "POST", "/api/memory/threads", `{"resourceId":"bob","threadId":"x y"}`, 400, "threadId"},
		{"create thread id ..", "POST", "/api/memory/threads", `{"resourceId":"bob","threadId":".."}`, 400, "threadId"},
		{"create thread id .", "POST", "/api/memory/threads", `{"resourceId":"bob","threadId":"."}`, 400, "threadId"},
		{"thread id .. in the path", "GET", "/api/memory/threads/%2E%2E/messages?resourceId=bob", "", 400, "invalid id"},
		{"illegal agent id", "GET", "/api/memory/threads?resourceId=bob&agentId=a%20b", "", 400, "agentId"},
		{"create for unknown agent", "POST", "/api/memory/threads?agentId=nope", `{"resourceId":"bob"}`, 404, "Agent with id nope not found"},
		{"old lower-case resourceid", "GET", "/api/memory/threads/bob-1?resourceid=bob", "", 200, ""},
		{"requestContext resource", "GET", "/api/memory/threads/bob-1?requestContext=" + rc, "", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			status, resp := e.do(tt.method, tt.path, body)
			if tt.status == 200 {
				wantStatus(t, tt.name, status, resp, 200)
				return
			}
			wantError(t, tt.name, status, resp, tt.status, tt.substr)
		})
	}
}

func TestThreadsPaging(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		must(e.mem.CreateThread(t.Context(), memory.Thread{ID: fmt.Sprintf("t%d", i), ResourceID: "r", CreatedAt: base.Add(time.Duration(i) * time.Hour)}))
	}
	msgs := make([]keel.Message, 45)
	for i := range msgs {
		msgs[i] = keel.UserText(fmt.Sprint(i))
		msgs[i].CreatedAt = base.Add(time.Duration(i) * time.Second)
	}
	must(e.mem.SaveMessages(t.Context(), "r", "t0", msgs))
	tests := []struct {
		path    string
		first   string
		n       int
		hasMore bool
	}{
		{"/api/memory/threads?resourceId=r&perPage=2", "t4", 2, true},
		{"/api/memory/threads?resourceId=r&perPage=2&page=2", "t0", 1, false},
		{"/api/memory/threads?resourceId=r&orderBy[field]=createdAt&orderBy[direction]=ASC", "t0", 5, false},
	}
	for _, tt := range tests {
		status, body := e.do("GET", tt.path, nil)
		v := wantStatus(t, tt.path, status, body, 200)
		th := v["threads"].([]any)
		if len(th) != tt.n || th[0].(map[string]any)["id"] != tt.first || v["hasMore"] != tt.hasMore {
			t.Errorf("Got(%s) = %d threads from %v, hasMore %v; want %d from %s, %v", tt.path, len(th), th[0].(map[string]any)["id"], v["hasMore"], tt.n, tt.first, tt.hasMore)
		}
	}
	mtests := []struct {
		query   string
		n       int
		first   string
		perPage float64
		hasMore bool
	}{
		{"", 40, "0", 40, true},
		{"&page=1", 5, "40", 40, false},
		{"&perPage=false", 45, "0", 45, false},
		{"&perPage=10&page=2", 10, "20", 10, true},
	}
	for _, tt := range mtests {
		status, body := e.do("GET", "/api/memory/threads/t0/messages?resourceId=r"+tt.query, nil)
		v := wantStatus(t, "messages"+tt.query, status, body, 200)
		ms := v["messages"].([]any)
		text := ms[0].(map[string]any)["content"].(map[string]any)["content"]
		if len(ms) != tt.n || text != tt.first || v["perPage"] != tt.perPage || v["hasMore"] != tt.hasMore || v["total"] != float64(45) {
			t.Errorf("Got(messages%s) = %d from %v, perPage %v, hasMore %v; want %d from %s, %v, %v", tt.query, len(ms), text, v["perPage"], v["hasMore"], tt.n, tt.first, tt.perPage, tt.hasMore)
		}
	}
}

func TestNoMemoryStore(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.Memory = nil }})
	status, body := e.do("GET", "/api/memory/threads?resourceId=r", nil)
	wantError(t, "list without a store", status, body, 501, "no memory store")
}

// Messages the runtime added itself are left out unless asked for.
func TestMessagesHideSystemReminders(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	must(e.mem.CreateThread(t.Context(), memory.Thread{ID: "t", ResourceID: "r"}))
	reminder := keel.UserText("<system-reminder>continue</system-reminder>")
	reminder.Metadata = map[string]any{keel.MetadataSystemReminder: true}
	must(e.mem.SaveMessages(t.Context(), "r", "t", []keel.Message{keel.UserText("hi"), reminder, keel.UserText("bye")}))
	for query, want := range map[string]int{"": 2, "&includeSystemReminders=true": 3} {
		status, body := e.do("GET", "/api/memory/threads/t/messages?resourceId=r"+query, nil)
		v := wantStatus(t, "messages"+query, status, body, 200)
		if got := len(v["messages"].([]any)); got != want {
			t.Errorf("Got(messages%s) = %d; want %d", query, got, want)
		}
	}
}

func TestUpdateThread(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	must(e.mem.CreateThread(t.Context(), memory.Thread{ID: "t", ResourceID: "r", Title: "old", Metadata: map[string]any{"a": 1.0}}))
	status, body := e.do("PATCH", "/api/memory/threads/t?resourceId=r", `{"title":"new"}`)
	v := wantStatus(t, "rename", status, body, 200)
	if v["title"] != "new" || v["metadata"].(map[string]any)["a"] != 1.0 {
		t.Errorf("Got(renamed) = %v; want title new, metadata kept", v)
	}
	status, body = e.do("PATCH", "/api/memory/threads/t?resourceId=r", `{"metadata":{"b":2}}`)
	v = wantStatus(t, "new metadata", status, body, 200)
	if v["title"] != "new" || v["metadata"].(map[string]any)["b"] != 2.0 {
		t.Errorf("Got(updated) = %v; want title kept, metadata {b:2}", v)
	}
	status, body = e.do("PATCH", "/api/memory/threads/t?resourceId=mallory", `{"title":"mine now"}`)
	wantError(t, "another resource's thread", status, body, 404, "Thread not found")
	status, body = e.do("PATCH", "/api/memory/threads/t?resourceId=r", `{"title":`)
	wantError(t, "malformed", status, body, 400, "malformed JSON")
	if got := must(e.mem.GetThread(t.Context(), "r", "t")); got.Title != "new" {
		t.Errorf("Got(stored title) = %q; want new", got.Title)
	}
}

// A trusted caller (no auth, or the shared token) finds a thread by its id
// alone, as Mastra's client expects: get, messages, update and delete send
// no resource. A resource it does name must be the owner's.
func TestThreadsByIDAlone(t *testing.T) {
	for _, token := range []string{"", "shared-secret"} {
		t.Run("token="+token, func(t *testing.T) {
			e := newEnv(t, envOptions{model: keeltest.NewModel(), token: token})
			must(e.mem.CreateThread(t.Context(), memory.Thread{ID: "bob-1", ResourceID: "bob", Title: "Bob's"}))
			must(e.mem.SaveMessages(t.Context(), "bob", "bob-1", []keel.Message{keel.UserText("hello")}))

			status, body := e.do("GET", "/api/memory/threads/bob-1?agentId=support", nil)
			if v := wantStatus(t, "get", status, body, 200); v["resourceId"] != "bob" || v["title"] != "Bob's" {
				t.Errorf("Got(get) = %v; want bob's thread", v)
			}
			status, body = e.do("GET", "/api/memory/threads/bob-1/messages?agentId=support", nil)
			v := wantStatus(t, "messages", status, body, 200)
			msgs := v["messages"].([]any)
			if len(msgs) != 1 || msgs[0].(map[string]any)["resourceId"] != "bob" {
				t.Errorf("Got(messages) = %v; want bob's one message", v)
			}
			status, body = e.do("PATCH", "/api/memory/threads/bob-1?agentId=support", `{"title":"Renamed"}`)
			wantStatus(t, "update", status, body, 200)

			// Naming another resource finds nothing, and changes nothing.
			for _, tt := range []struct{ method, path, body string }{
				{"GET", "/api/memory/threads/bob-1?resourceId=alice", ""},
				{"GET", "/api/memory/threads/bob-1/messages?resourceId=alice", ""},
				{"PATCH", "/api/memory/threads/bob-1?resourceId=alice", `{"title":"mine"}`},
				{"DELETE", "/api/memory/threads/bob-1?resourceId=alice", ""},
				{"GET", "/api/memory/threads/nobody", ""},
				{"DELETE", "/api/memory/threads/nobody", ""},
			} {
				var b any
				if tt.body != "" {
					b = tt.body
				}
				status, body := e.do(tt.method, tt.path, b)
				if v := wantError(t, tt.method+" "+tt.path, status, body, 404, "Thread not found"); len(v) != 1 {
					t.Errorf("Got(%s %s) = %v; want the error only", tt.method, tt.path, v)
				}
			}
			if th := must(e.mem.GetThread(t.Context(), "bob", "bob-1")); th.Title != "Renamed" {
				t.Errorf("Got(title) = %q; want Renamed, untouched by the refused update", th.Title)
			}

			status, body = e.do("DELETE", "/api/memory/threads/bob-1?agentId=support", nil)
			wantStatus(t, "delete", status, body, 200)
			if _, err := e.mem.GetThread(t.Context(), "bob", "bob-1"); err == nil {
				t.Errorf("Got(thread after delete) = found; want it gone")
			}
		})
	}
}

// A thread's title defaults to its first user text, whether the run made
// the thread or it was made, untitled, through the API first.
func TestThreadTitleFromFirstTurn(t *testing.T) {
	model := keeltest.NewModel(keeltest.Reply{Text: "ok"})
	model.RepeatLast = true
	e := newEnv(t, envOptions{model: model})
	status, body := e.do("POST", "/api/memory/threads?agentId=support", `{"resourceId":"r","threadId":"made-first"}`)
	wantStatus(t, "create", status, body, 200)
	for _, id := range []string{"made-first", "made-by-run"} {
		status, body := e.do("POST", "/api/agents/support/generate",
			fmt.Sprintf(`{"messages":"Which of our Berlin leads signed in March?","memory":{"thread":%q,"resource":"r"}}`, id))
		wantStatus(t, "generate", status, body, 200)
	}
	status, body = e.do("GET", "/api/memory/threads?resourceId=r", nil)
	for _, th := range wantStatus(t, "list", status, body, 200)["threads"].([]any) {
		if th := th.(map[string]any); th["title"] != "Which of our Berlin leads signed in March?" {
			t.Errorf("Got(title of %v) = %q; want the first user text", th["id"], th["title"])
		}
	}
}

// An unknown agent's id is said back whole up to 64 bytes, and cut with
// "..." past them, so that a long id cannot fill the answer.
func TestUnknownAgentIDSaidBackCut(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	for _, tc := range []struct{ id, want string }{
		{strings.Repeat("a", 64), "Agent with id " + strings.Repeat("a", 64) + " not found"},
		{strings.Repeat("b", 65), "Agent with id " + strings.Repeat("b", 64) + "... not found"},
	} {
		status, body := e.do("GET", "/api/memory/threads?resourceId=user-1&agentId="+tc.id, nil)
		if v := wantStatus(t, "threads of agent "+tc.id, status, body, 404); v["error"] != tc.want {
			t.Errorf("Got(error) = %q; want %q", v["error"], tc.want)
		}
	}
}
