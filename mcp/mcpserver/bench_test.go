package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/mcp/mcpserver"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An ask over streamable HTTP, from the SDK's client, to an agent without
// memory whose model answers at once: what the MCP layer costs a call.
// A user's request is served by a server made for it (so that it acts for
// the user alone); a trusted caller's by one made at start. The
// difference is what that choice costs.
func BenchmarkHandlerAsk(b *testing.B) {
	model := keeltest.NewModel(keeltest.Reply{Text: "ok"})
	model.RepeatLast, model.NoRecord = true, true
	a, err := agent.New(agent.Config{ID: "assistant", Model: model, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{Agents: []*agent.Agent{a}, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	for _, caller := range []struct {
		name string
		c    mcpserver.Caller
	}{{"trusted", mcpserver.Caller{}}, {"user", mcpserver.Caller{Resource: "alice"}}} {
		b.Run(caller.name, func(b *testing.B) {
			ts := httptest.NewServer(handler(b, srv, mcpserver.HandlerOptions{Authorize: func(*http.Request) (mcpserver.Caller, error) {
				return caller.c, nil
			}}))
			defer ts.Close()
			sess, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).
				Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			params := &sdk.CallToolParams{Name: "ask_assistant", Arguments: map[string]any{"message": "hi"}}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				res, err := sess.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Fatalf("ask: %v %+v", err, res)
				}
			}
		})
	}
}
