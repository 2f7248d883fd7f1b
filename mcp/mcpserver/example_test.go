package mcpserver_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/mcp/mcpserver"
	"github.com/keel-go/keel/memory"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// An agent asked over streamable HTTP by the MCP SDK's client.
func ExampleServer_Handler() {
	a, _ := agent.New(agent.Config{ID: "assistant", Model: keeltest.NewModel(keeltest.Reply{Text: "Berlin has 3 leads."}),
		Memory: memory.NewInMemory(), Logger: quiet})
	srv, err := mcpserver.New(mcpserver.Options{Agents: []*agent.Agent{a}, Logger: quiet})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := srv.Handler(mcpserver.HandlerOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(h)
	defer ts.Close()

	sess, err := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sess.Close()
	res, err := sess.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_assistant",
		Arguments: map[string]any{"message": "How many leads are from Berlin?"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(srv.Tools(), res.Content[0].(*sdk.TextContent).Text)
	// Output: [ask_assistant] Berlin has 3 leads.
}

// The names a handler may allow besides loopback's: a URL, or a host
// with its port, is refused.
func ExampleCheckHost() {
	for _, h := range []string{"keel.example.com", "*.example.com", "https://keel.example.com"} {
		fmt.Println(h, mcpserver.CheckHost(h) == nil)
	}
	// Output:
	// keel.example.com true
	// *.example.com true
	// https://keel.example.com false
}
