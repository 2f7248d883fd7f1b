package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A streamable-HTTP server's tools, named for the model and called.
func ExampleStart() {
	// A server with one tool, in this process for the example.
	server := sdk.NewServer(&sdk.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	server.AddTool(&sdk.Tool{Name: "add", Description: "Adds two numbers.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ A, B float64 }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	defer ts.Close()

	c, err := mcpclient.Start(context.Background(), mcpclient.Config{Name: "calc", URL: ts.URL, Logger: quiet})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	add := c.Tools()[0]
	out, err := add.Execute(context.Background(), tool.Call{Input: json.RawMessage(`{"a":2,"b":40}`)})
	fmt.Println(add.Name, "-", add.Description)
	fmt.Println(out, err)
	// Output:
	// calc_add - Adds two numbers.
	// 42 <nil>
}

// The names a model sees: the server's name, then the tool's, with what
// a model's tool name may not hold replaced.
func ExampleToolName() {
	fmt.Println(mcpclient.ToolName("everything", "get-tiny-image"))
	fmt.Println(mcpclient.ToolName("github", "repos.list"))
	// Output:
	// everything_get-tiny-image
	// github_repos_list
}

// Values of env and headers may name environment variables.
func ExampleExpand() {
	lookup := func(name string) (string, bool) {
		if name == "SEARCH_TOKEN" {
			return "s3cret", true
		}
		return "", false
	}
	fmt.Println(mcpclient.Expand("Bearer ${SEARCH_TOKEN}", lookup))
	_, err := mcpclient.Expand("Bearer ${MISSING}", lookup)
	fmt.Println(err)
	// Output:
	// Bearer s3cret <nil>
	// mcpclient: environment variable not set: MISSING
}
