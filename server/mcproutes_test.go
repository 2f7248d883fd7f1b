package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/internal/mcptest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
	"github.com/keel-go/keel/tool"
)

// chartTool answers with an object and a file of its own, as a Go tool
// of a library user may: not every file comes from MCP.
var chartTool = tool.Tool{
	Name: "chart",
	Execute: func(ctx context.Context, call tool.Call) (any, error) {
		return &tool.Result{Output: map[string]int{"bars": 3}, Files: []keel.FilePart{
			{Data: []byte("GIF89a-chart"), MediaType: "image/gif", Filename: "chart.gif"}}}, nil
	},
}

// mcpEnv is a server in per-user mode (see toolsEnv) whose agent has
// chart, who and three tools of a real server-everything (over stdio,
// from test/mcp's lockfile) of the many it offers.
func mcpEnv(t *testing.T) *env {
	t.Helper()
	cmd := mcptest.Everything(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := mcpclient.Start(ctx, mcpclient.Config{Name: "everything", Command: cmd.Path, Args: cmd.Args,
		Timeout: 20 * time.Second, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	v, err := jwtauth.New(jwtauth.Options{Secret: jwtSecret, Audience: []string{"keel"}, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return newEnv(t, envOptions{model: keeltest.NewModel(), config: func(cfg *server.Config) {
		ac := cfg.Agents[0].Config()
		ac.Tools = []tool.Tool{chartTool, whoTool}
		ac.ToolSets = []tool.Set{c.Only("echo", "get-tiny-image", "gzip-file-as-resource")}
		cfg.Agents[0] = must(agentNew(ac))
		cfg.MCPServers = []server.MCPServer{c}
		cfg.Users, cfg.Token = v, "backend-secret"
	}})
}

// Mastra's MCP routes over the servers keel.yaml starts: one server's
// details, the tools of it an agent has (by the server's names for them),
// and each of those run on its own, behind the same auth as the rest.
func TestMCPServerRoutes(t *testing.T) {
	e := mcpEnv(t)
	backend, alice := bearer("backend-secret"), bearer(userToken(t, "alice"))
	tests := []struct {
		name, method, path string
		body               any
		header             []string
		status             int
		want               []string // in the body
	}{
		{"server", "GET", "/api/mcp/v0/servers/everything", nil, alice, 200,
			[]string{`"id":"everything"`, `"name":"everything"`, `"description":"mcp-servers/everything over stdio"`, `"is_latest":true`, `"state":"running"`}},
		{"listed", "GET", "/api/mcp/v0/servers", nil, backend, 200, []string{`"total_count":1`, `"id":"everything"`}},
		{"unknown server", "GET", "/api/mcp/v0/servers/nope", nil, backend, 404, []string{`MCP server with ID 'nope' not found`}},
		{"another version", "GET", "/api/mcp/v0/servers/everything?version=0.0.1-none", nil, backend, 404, []string{`found, but not version '0.0.1-none'`}},
		{"server without a token", "GET", "/api/mcp/v0/servers/everything", nil, nil, 401, []string{"missing token"}},
		{"tools", "GET", "/api/mcp/everything/tools", nil, alice, 200,
			[]string{`{"id":"everything_echo","name":"echo","description":"Echoes back the input string","inputSchema":{`, `"name":"get-tiny-image"`, `"name":"gzip-file-as-resource"`, `"toolType":"tool"`}},
		{"tool", "GET", "/api/mcp/everything/tools/echo", nil, alice, 200, []string{`"id":"everything_echo"`, `"message":{`}},
		{"a tool no agent has", "GET", "/api/mcp/everything/tools/get-env", nil, backend, 404, []string{`Tool with ID 'get-env' not found on MCP server 'everything'`}},
		{"keel's name for a tool", "GET", "/api/mcp/everything/tools/everything_echo", nil, backend, 404, []string{"not found on MCP server"}},
		{"tools of an unknown server", "GET", "/api/mcp/nope/tools", nil, backend, 404, []string{`MCP server with ID 'nope' not found`}},
		{"tools without a token", "GET", "/api/mcp/everything/tools", nil, nil, 401, []string{"missing token"}},
		{"execute", "POST", "/api/mcp/everything/tools/echo/execute", `{"data":{"message":"hi"}}`, alice, 200, []string{`{"result":"Echo: hi"}`}},
		{"execute a tool no agent has", "POST", "/api/mcp/everything/tools/get-env/execute", `{"data":{}}`, backend, 404, []string{"not found on MCP server"}},
		{"execute without data", "POST", "/api/mcp/everything/tools/echo/execute", `{}`, backend, 400, []string{`Argument \"data\" is required`}},
		{"execute, the server refuses", "POST", "/api/mcp/everything/tools/echo/execute", `{"data":{"message":7}}`, backend, 500, []string{"tool everything_echo failed"}},
		{"execute without a token", "POST", "/api/mcp/everything/tools/echo/execute", `{"data":{"message":"hi"}}`, nil, 401, []string{"missing token"}},
		{"execute as another user", "POST", "/api/mcp/everything/tools/echo/execute?resourceId=bob", `{"data":{"message":"hi"}}`, alice, 403, []string{"acts for resource alice only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, got := e.do(tt.method, tt.path, tt.body, tt.header...)
			if status != tt.status {
				t.Errorf("Got(%s %s) = %d %s; want %d", tt.method, tt.path, status, got, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("Got(%s %s) = %d %s; want it to hold %s", tt.method, tt.path, status, got, w)
				}
			}
		})
	}

	// The list holds the agent's three tools of the server, in its order,
	// and none of those it left out.
	_, body := e.do("GET", "/api/mcp/everything/tools", nil, backend...)
	var list struct{ Tools []struct{ ID, Name string } }
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name+"="+tl.ID)
	}
	if strings.Join(names, " ") != "echo=everything_echo get-tiny-image=everything_get-tiny-image gzip-file-as-resource=everything_gzip-file-as-resource" {
		t.Errorf("Got(tools of everything) = %v; want the agent's three, the server's names and keel's", names)
	}
}

// wireToolFiles is the answer of an execute route for a result with files.
type wireToolFiles struct {
	Output json.RawMessage
	Files  []struct {
		Type, Data, MimeType, Filename, SHA256 string
		Size                                   int64
	}
}

// fileBytes decodes the data: URL of a returned file.
func fileBytes(t *testing.T, dataURL, mediaType string) []byte {
	t.Helper()
	b64, ok := strings.CutPrefix(dataURL, "data:"+mediaType+";base64,")
	if !ok {
		t.Fatalf("Got(file data) = %.60s...; want a data: URL of %s", dataURL, mediaType)
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A tool result's files come back with it from each execute route: an
// MCP tool's image and embedded file as the server sent them, a Go tool's
// file too, each a file part as stored messages hold one.
func TestExecuteReturnsFiles(t *testing.T) {
	e := mcpEnv(t)
	backend := bearer("backend-secret")
	gz := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("hello, gzip"))
	tests := []struct {
		name, path, data string
		inResult         bool
		output           string // in the output
		mediaType, file  string
		check            func(t *testing.T, b []byte)
	}{
		{"image by /api/tools", "/api/tools/everything_get-tiny-image/execute", `{}`, false,
			`"Here's the image you requested:\nThe image above is the MCP logo."`, "image/png", "everything_get-tiny-image-1.png",
			func(t *testing.T, b []byte) {
				if cfg, err := png.DecodeConfig(bytes.NewReader(b)); err != nil || cfg.Width != 20 || cfg.Height != 20 {
					t.Errorf("Got(decoded image) = %+v, %v; want the 20x20 MCP logo", cfg, err)
				}
			}},
		{"embedded file by the agent's route", "/api/agents/support/tools/everything_gzip-file-as-resource/execute",
			`{"name":"hello.txt.gz","data":"` + gz + `","outputType":"resource"}`, false,
			`"the tool returned a file: hello.txt.gz"`, "application/gzip", "hello.txt.gz",
			func(t *testing.T, b []byte) {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				if text, err := io.ReadAll(zr); err != nil || string(text) != "hello, gzip" {
					t.Errorf("Got(gunzipped file) = %q, %v; want what the server was given", text, err)
				}
			}},
		{"image by the MCP route", "/api/mcp/everything/tools/get-tiny-image/execute", `{}`, true,
			`"Here's the image you requested:`, "image/png", "everything_get-tiny-image-1.png", nil},
		{"a Go tool's file", "/api/tools/chart/execute", `{}`, false, `{"bars":3}`, "image/gif", "chart.gif",
			func(t *testing.T, b []byte) {
				if string(b) != "GIF89a-chart" {
					t.Errorf("Got(file) = %q; want the tool's bytes", b)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := e.do("POST", tt.path, `{"data":`+tt.data+`}`, backend...)
			if status != 200 {
				t.Fatalf("Got(POST %s) = %d %s; want 200", tt.path, status, body)
			}
			if tt.inResult {
				var r struct{ Result json.RawMessage }
				if err := json.Unmarshal(body, &r); err != nil || r.Result == nil {
					t.Fatalf("Got(POST %s) = %s, %v; want the answer under result", tt.path, body, err)
				}
				body = r.Result
			}
			var got wireToolFiles
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("Got(POST %s) = %s, %v; want {output, files}", tt.path, body, err)
			}
			if !strings.Contains(string(got.Output), tt.output) {
				t.Errorf("Got(output) = %s; want it to hold %s", got.Output, tt.output)
			}
			if len(got.Files) != 1 {
				t.Fatalf("Got(files) = %d; want 1 in %s", len(got.Files), body)
			}
			f := got.Files[0]
			if f.Type != "file" || f.MimeType != tt.mediaType || f.Filename != tt.file || len(f.SHA256) != 64 {
				t.Errorf("Got(file) = %s %s %s sha256 %q; want a file part of %s named %s", f.Type, f.MimeType, f.Filename, f.SHA256, tt.mediaType, tt.file)
			}
			b := fileBytes(t, f.Data, tt.mediaType)
			if int64(len(b)) != f.Size {
				t.Errorf("Got(size) = %d; want the %d bytes of the data", f.Size, len(b))
			}
			if tt.check != nil {
				tt.check(t, b)
			}
		})
	}
}
