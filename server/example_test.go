package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
)

// Serve one agent with memory, and ask it something in a thread.
func Example() {
	mem := memory.NewInMemory()
	a, err := agent.New(agent.Config{ID: "support", Model: keeltest.NewModel(keeltest.Reply{Text: "Hello!"}), Memory: mem})
	if err != nil {
		panic(err)
	}
	srv, err := server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger()})
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	resp, err := http.Post(hs.URL+"/api/agents/support/generate", "application/json",
		strings.NewReader(`{"messages":"Say hi","memory":{"thread":"t-1","resource":"user-1"}}`))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)

	resp, err = http.Get(hs.URL + "/api/memory/threads?resourceId=user-1")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(strings.Contains(string(body), `"id":"t-1"`))
	// Output:
	// 200 OK
	// true
}

// A stream is Server-Sent Events in Mastra's envelope, ending with [DONE].
func ExampleServer_Handler_stream() {
	a, err := agent.New(agent.Config{ID: "support", Model: keeltest.NewModel(keeltest.Reply{Chunks: []string{"Hi", "!"}})})
	if err != nil {
		panic(err)
	}
	srv, err := server.New(server.Config{Agents: []*agent.Agent{a}, Logger: quietLogger()})
	if err != nil {
		panic(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	resp, err := http.Post(hs.URL+"/api/agents/support/stream", "application/json", strings.NewReader(`{"messages":"hello"}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, block := range strings.Split(strings.TrimSpace(string(body)), "\n\n") {
		typ, _, _ := strings.Cut(strings.TrimPrefix(block, `data: {"type":"`), `"`)
		fmt.Println(typ)
	}
	// Output:
	// start
	// step-start
	// text-start
	// text-delta
	// text-delta
	// text-end
	// step-finish
	// finish
	// data: [DONE]
}

// Without the bearer token, every /api request is refused.
func ExampleConfig_token() {
	a, _ := agent.New(agent.Config{ID: "support", Model: keeltest.NewModel()})
	srv, _ := server.New(server.Config{Agents: []*agent.Agent{a}, Token: "s3cret", Logger: quietLogger()})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	resp, _ := http.Get(hs.URL + "/api/agents")
	resp.Body.Close()
	fmt.Println(resp.StatusCode)

	req, _ := http.NewRequest("GET", hs.URL+"/api/agents", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, _ = http.DefaultClient.Do(req)
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 401
	// 200
}

// Per-user tokens: each caller acts for the resource its token names.
func ExampleConfig_users() {
	mem := memory.NewInMemory()
	a, _ := agent.New(agent.Config{ID: "support", Model: keeltest.NewModel(), Memory: mem})
	secret := []byte("an example secret of at least 32 bytes")
	users, _ := jwtauth.New(jwtauth.Options{Secret: secret})
	srv, _ := server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Users: users, Logger: quietLogger()})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	_, _ = mem.CreateThread(context.Background(), memory.Thread{ID: "bob-1", ResourceID: "bob"})

	tok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": "alice", "exp": time.Now().Add(time.Hour).Unix(),
	}).SignedString(secret)
	for _, path := range []string{"/api/memory/threads", "/api/memory/threads/bob-1", "/api/memory/threads?resourceId=bob"} {
		req, _ := http.NewRequest("GET", hs.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, _ := http.DefaultClient.Do(req)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, strings.TrimSpace(string(body)))
	}
	// Output:
	// 200 {"threads":[],"total":0,"page":0,"perPage":100,"hasMore":false}
	// 404 {"error":"Thread not found"}
	// 403 {"error":"your token acts for resource alice only, and this request names bob: leave the resource out or name your own"}
}
