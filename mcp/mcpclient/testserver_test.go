package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary is also the tests' own MCP server: run with
// serverEnv=1 it serves the tools below over stdio. The reference servers
// from npm are the real ones (see everything_test.go); this one does what
// they cannot be made to do on cue: crash, hang, change its tools, and
// tell a test what it received.
const (
	serverEnv = "MCPCLIENT_TEST_SERVER"
	// logEnv names a file where the server notes the calls it saw
	// cancelled.
	logEnv = "MCPCLIENT_TEST_LOG"
	// toolsEnv set to "collide" adds two tools a model cannot tell apart.
	toolsEnv = "MCPCLIENT_TEST_TOOLS"
)

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		if err := serve(); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// PNG is the picture the test server's picture tool returns.
var PNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR test picture")

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func args(req *sdk.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

var anyObject = json.RawMessage(`{"type":"object"}`)

func serve() error {
	s := sdk.NewServer(&sdk.Implementation{Name: "keel-test-server", Version: "1.0.0"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes the message back.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(fmt.Sprintf("echo: %v", args(req)["message"])), nil
		})
	s.AddTool(&sdk.Tool{Name: "picture", Title: "A picture and friends", InputSchema: anyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "Here it is:"},
				&sdk.ImageContent{Data: PNG, MIMEType: "image/png"},
				&sdk.AudioContent{Data: []byte("RIFF....WAVE"), MIMEType: "audio/wav"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///data/report.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7 test")}},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///data/notes.txt", MIMEType: "text/plain", Text: "some notes"}},
				&sdk.ResourceLink{URI: "https://example.com/big.csv", Name: "big.csv", MIMEType: "text/csv"},
			}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "structured", InputSchema: anyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"temperature": 21}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", InputSchema: anyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it went wrong: no such city"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "sleep", InputSchema: anyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			ms, _ := args(req)["ms"].(float64)
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return text("slept"), nil
			case <-ctx.Done():
				if path := os.Getenv(logEnv); path != "" {
					f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
					if err == nil {
						fmt.Fprintln(f, "cancelled")
						f.Close()
					}
				}
				return nil, ctx.Err()
			}
		})
	s.AddTool(&sdk.Tool{Name: "crash", InputSchema: anyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "env", InputSchema: anyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			name, _ := args(req)["name"].(string)
			v, ok := os.LookupEnv(name)
			if !ok {
				return text("(unset)"), nil
			}
			return text(v), nil
		})
	s.AddTool(&sdk.Tool{Name: "add_tool", InputSchema: anyObject},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s.AddTool(&sdk.Tool{Name: "late", Description: "Came later.", InputSchema: anyObject},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return text("late answer"), nil
				})
			return text("added"), nil
		})
	s.AddTool(&sdk.Tool{Name: "dot.name", InputSchema: anyObject},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("dotted"), nil })
	if os.Getenv(toolsEnv) == "collide" {
		s.AddTool(&sdk.Tool{Name: "dot_name", InputSchema: anyObject},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return text("underscored"), nil
			})
	}
	return s.Run(context.Background(), &sdk.StdioTransport{})
}
