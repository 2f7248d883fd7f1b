package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
)

// The fuzz targets below send arbitrary bytes to each route's request
// decoder, through the server's handler. Whatever the bytes, the answer is
// a success or the caller's mistake (4xx) with a JSON {"error": "..."}
// body: never a panic, never a 5xx, since the model and the store here do
// not fail.

// fuzzHandler is a server with one agent ("support", on a model that
// always answers "ok") and memory holding thread "t" of resource "r".
func fuzzHandler(f *testing.F) http.Handler {
	f.Helper()
	mem := memory.NewInMemory()
	model := keeltest.NewModel(keeltest.Reply{Text: "ok"})
	model.RepeatLast, model.NoRecord = true, true
	a, err := agent.New(agent.Config{ID: "support", Instructions: "Be brief.", Model: model, Memory: mem, Logger: quietLogger()})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := mem.CreateThread(f.Context(), memory.Thread{ID: "t", ResourceID: "r"}); err != nil {
		f.Fatal(err)
	}
	s, err := server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger()})
	if err != nil {
		f.Fatal(err)
	}
	return s.Handler()
}

// serveFuzzed sends one request to h and checks the answer's contract.
// query, as given, is the request's query string.
func serveFuzzed(t *testing.T, h http.Handler, method, path, query string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.URL.RawQuery = query
	target := req.URL.String()
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Fatalf("Got(%s %s with %q) = %d %s; want 2xx or 4xx", method, target, body, rec.Code, rec.Body)
	}
	if rec.Code >= 400 {
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
			t.Fatalf("Got(%s %s with %q) = %d %q; want a JSON body with an error", method, target, body, rec.Code, rec.Body)
		}
	}
	return rec
}

// runSeeds are request bodies of generate and stream, right and wrong.
var runSeeds = []string{
	`{"messages":"Hi"}`,
	`{"messages":[{"role":"user","content":"Hi"}],"memory":{"thread":"t","resource":"r"}}`,
	`{"messages":[{"role":"user","content":[{"type":"text","text":"see"},{"type":"file","data":"data:text/csv;base64,YSxiCg==","mimeType":"text/csv","filename":"a.csv"}]}]}`,
	`{"messages":[{"role":"user","content":[{"type":"image","image":"aGk=","mimeType":"image/png"}]}],"threadId":"t","resourceId":"r"}`,
	`{"messages":"Hi","maxSteps":-1}`,
	`{"messages":"Hi","memory":{"thread":{"id":"t2","title":"x"},"resource":"r","options":{"lastMessages":false}}}`,
	`{"messages":[{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"x","args":{}}]}]}`,
	`{"messages":null}`, `[]`, `{"messages":`, ``, `{"messages":"Hi","runId":"r1","requestContext":{"a":1}}`,
}

func FuzzGenerateRequest(f *testing.F) {
	h := fuzzHandler(f)
	for _, s := range runSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := serveFuzzed(t, h, "POST", "/api/agents/support/generate", "", body)
		if rec.Code == http.StatusOK && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("Got(generate with %q) = 200 %q; want a JSON body", body, rec.Body)
		}
	})
}

func FuzzStreamRequest(f *testing.F) {
	h := fuzzHandler(f)
	for _, s := range runSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := serveFuzzed(t, h, "POST", "/api/agents/support/stream", "", body)
		if rec.Code == http.StatusOK && !strings.HasSuffix(rec.Body.String(), "data: [DONE]\n\n") {
			t.Fatalf("Got(stream with %q) = 200 %q; want it ended by data: [DONE]", body, rec.Body)
		}
	})
}

func FuzzCreateThreadRequest(f *testing.F) {
	h := fuzzHandler(f)
	for _, s := range []string{
		`{"resourceId":"r","threadId":"t9","title":"T","metadata":{"a":1}}`,
		`{"resourceId":"r"}`, `{"threadId":"t"}`, `{"resourceId":"r","threadId":"t"}`,
		`{"resourceId":"","threadId":"../x"}`, `{"metadata":[]}`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		serveFuzzed(t, h, "POST", "/api/memory/threads", "agentId=support", body)
	})
}

func FuzzUpdateThreadRequest(f *testing.F) {
	h := fuzzHandler(f)
	for _, s := range []string{`{"title":"new"}`, `{"metadata":{"b":2}}`, `{"title":null}`, `{"title":1}`, `{"metadata":"x"}`, `{"title":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		serveFuzzed(t, h, "PATCH", "/api/memory/threads/t", "resourceId=r&agentId=support", body)
	})
}

// The GET routes decode their query: the fuzzed text is the query string.

func FuzzListThreadsQuery(f *testing.F) {
	h := fuzzHandler(f)
	for _, s := range []string{"resourceId=r", "resourceId=r&page=1&perPage=2", "resourceId=r&perPage=-1", "resourceId=r&orderBy=createdAt&sortDirection=ASC", "page=x", "", "agentId=nobody&resourceId=r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		serveFuzzed(t, h, "GET", "/api/memory/threads", "agentId=support&"+query, nil)
	})
}

func FuzzListMessagesQuery(f *testing.F) {
	h := fuzzHandler(f)
	for _, s := range []string{"resourceId=r", "resourceId=r&page=0&perPage=10", "resourceId=r&perPage=false", "resourceId=r&format=aiv5", "resourceId=r&include=%5B%5D", "resourceId=mallory", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, query string) {
		serveFuzzed(t, h, "GET", "/api/memory/threads/t/messages", "agentId=support&"+query, nil)
	})
}
