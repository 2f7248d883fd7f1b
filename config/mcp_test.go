package config_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/internal/mcptest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCPParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // each a line of the error
	}{
		{"unknown tool lists the servers", `
mcp:
  everything: {command: npx}
agents:
  - id: a
    tools: [run_command, evrything]
`, []string{`keel.yaml:6: agents[0].tools[1]: unknown tool "evrything"; the tools are run_command, read_file, list_files, the servers of mcp: (everything), or one tool of a server, such as everything/TOOL`}},
		{"unknown server of a tool", `
mcp:
  everything: {command: npx}
agents:
  - id: a
    tools:
      - search/query
`, []string{`keel.yaml:7: agents[0].tools[0]: unknown tool "search/query": mcp: has no server "search"`}},
		{"no mcp at all", `
agents:
  - id: a
    tools: [everything/echo]
`, []string{`keel.yaml:4: agents[0].tools[0]: unknown tool "everything/echo": mcp: has no server "everything"; the tools are run_command, read_file, list_files`}},
		{"empty tool of a server", `
mcp: {everything: {command: npx}}
agents: [{id: a, tools: [everything/]}]
`, []string{`unknown tool "everything/"`}},
		{"whole and one", `
mcp: {everything: {command: npx}}
agents:
  - id: a
    tools: [everything, everything/echo]
`, []string{`keel.yaml:5: agents[0].tools[1]: everything/echo is one of everything's tools, and everything is listed whole already`}},
		{"one and whole", `
mcp: {everything: {command: npx}}
agents:
  - id: a
    tools: [everything/echo, everything]
`, []string{`agents[0].tools[1]: everything lists all its tools, and one of them is listed already`}},
		{"server mistakes", `
mcp:
  both: {command: npx, url: "https://x/mcp"}
  none: {timeout: 5s}
  "bad name": {command: npx}
  run_command: {command: npx}
  stdioheaders: {command: npx, headers: {A: b}}
  httpenv:
    url: https://x/mcp
    env: {A: b}
  ftp: {url: "ftp://x/mcp"}
  slow: {command: npx, timeout: -1s}
  envs:
    command: npx
    env:
      "1BAD": x
      GOOD: "${UNCLOSED"
  headers:
    url: https://x/mcp
    headers: {Authorization: "Bearer ${A-B}"}
agents: [{id: a}]
`, []string{
			`keel.yaml:3: mcp.both: give command or url, not both`,
			`keel.yaml:4: mcp.none: give command (a program keel runs, such as npx) or url (a streamable-HTTP server)`,
			`keel.yaml:5: mcp.bad name: "bad name": name a server with 1 to 32 letters, digits, '_' or '-'`,
			`keel.yaml:6: mcp.run_command: "run_command" is a sandbox tool's name`,
			`keel.yaml:7: mcp.stdioheaders.headers: headers go to an HTTP server`,
			`keel.yaml:8: mcp.httpenv: env and args go to a server keel runs`,
			`keel.yaml:11: mcp.ftp.url: "ftp://x/mcp": write an http:// or https:// URL`,
			`keel.yaml:12: mcp.slow.timeout: -1s: use a positive duration`,
			`keel.yaml:16: mcp.envs.env.1BAD: "1BAD" is not a variable name`,
			`keel.yaml:17: mcp.envs.env.GOOD: "${UNCLOSED" opens ${ without closing it`,
			`keel.yaml:20: mcp.headers.headers.Authorization: "Bearer ${A-B}" names ${A-B}`,
		}},
		{"unknown field", `
mcp:
  everything: {comand: npx}
agents: [{id: a}]
`, []string{`keel.yaml:3: unknown field "comand"; the fields here are: command, args, env, url, headers, timeout, optional`}},
		{"wrong type", `
mcp: [everything]
agents: [{id: a}]
`, []string{`keel.yaml:2: got a list`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml), "keel.yaml")
			if err == nil {
				t.Fatalf("Got(Parse) = nil; want errors")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Got(Parse) = %v\nwant it to say: %s", err, w)
				}
			}
		})
	}
}

// mcpServer serves MCP over streamable HTTP, in the test's process, with
// a tool of each name given, each answering its name.
func mcpServer(t *testing.T, toolNames ...string) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	for _, name := range toolNames {
		s.AddTool(&sdk.Tool{Name: name, Description: "the " + name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name}}}, nil
			})
	}
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			return nil
		}
		return s
	}, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func buildMCP(t *testing.T, yaml string, env map[string]string) (*config.Built, error) {
	t.Helper()
	f, err := config.Parse([]byte(yaml), "keel.yaml")
	if err != nil {
		t.Fatalf("Got(Parse) = %v; want the file read", err)
	}
	built, err := f.Build(config.BuildOptions{
		ResolveModel: func(string) (keel.Model, error) { return keeltest.NewModel(keeltest.Reply{Text: "hi"}), nil },
		DefaultModel: "test/model",
		SandboxRoot:  t.TempDir(),
		Logger:       quiet,
		LookupEnv: func(name string) (string, bool) {
			v, ok := env[name]
			return v, ok
		},
	})
	if built != nil {
		t.Cleanup(func() { built.Close() })
	}
	return built, err
}

func toolNamesOf(ts []tool.Tool) string {
	var names []string
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return strings.Join(names, " ")
}

func TestMCPBuild(t *testing.T) {
	search := mcpServer(t, "query", "index")
	other := mcpServer(t, "c", "d")
	token := map[string]string{"TOKEN": "s3cret"}
	yaml := `
mcp:
  search:
    url: ` + search + `
    headers: {Authorization: "Bearer ${TOKEN}"}
  unused:
    command: keel-no-such-server
  a_b:
    url: ` + other + `
    headers: {Authorization: "Bearer ${TOKEN}"}
agents:
  - id: all
    tools: [read_file, search]
  - id: one
    sandbox: none
    tools: [search/query, a_b/c]
`
	built, err := buildMCP(t, yaml, token)
	if err != nil {
		t.Fatalf("Got(Build) = %v; want the agents built", err)
	}
	if got := toolNamesOf(built.Agents[0].Tools()); got != "read_file search_index search_query" {
		t.Errorf("Got(tools of all) = %q; want read_file and search's two", got)
	}
	if got := toolNamesOf(built.Agents[1].Tools()); got != "search_query a_b_c" {
		t.Errorf("Got(tools of one) = %q; want the two named", got)
	}
	if built.Agents[1].Config().Workspace != nil {
		t.Errorf("Got(sandbox of an agent with MCP tools only) = set; want none")
	}
	// Each server is started once, the unused one not at all.
	if len(built.MCP) != 2 || built.MCP[0].Name() != "a_b" || built.MCP[1].Name() != "search" {
		t.Errorf("Got(Built.MCP) = %d servers; want a_b and search", len(built.MCP))
	}
	if !strings.Contains(strings.Join(built.Info, "\n"), "mcp servers: a_b (http, 2 tools), search (http, 2 tools)") {
		t.Errorf("Got(Info) = %q; want the servers said", built.Info)
	}
	out, err := built.Agents[1].Tools()[0].Execute(context.Background(), tool.Call{Input: json.RawMessage(`{}`)})
	if err != nil || out != "query" {
		t.Errorf("Got(search_query) = %v, %v; want the server's answer", out, err)
	}
	built.Close()
	if _, err := built.Agents[1].Tools()[0].Execute(context.Background(), tool.Call{Input: json.RawMessage(`{}`)}); err == nil {
		t.Errorf("Got(a call after Close) = nil; want an error")
	}
}

func TestMCPBuildErrors(t *testing.T) {
	search := mcpServer(t, "query")
	ab := mcpServer(t, "c")
	a := mcpServer(t, "b_c")
	tests := []struct {
		name, yaml string
		env        map[string]string
		want       string
		warning    string
	}{
		{"no such tool", `
mcp: {search: {url: ` + search + `, headers: {Authorization: "Bearer ${TOKEN}"}}}
agents:
  - id: a
    tools: [search/qeury]
`, map[string]string{"TOKEN": "s3cret"}, `keel.yaml:5: agents[0].tools[0]: server search offers no tool "qeury"; its tools are: query`, ""},
		{"one name for two tools", `
mcp:
  a: {url: ` + a + `, headers: {Authorization: "Bearer ${TOKEN}"}}
  a_b: {url: ` + ab + `, headers: {Authorization: "Bearer ${TOKEN}"}}
agents:
  - id: x
    tools:
      - a
      - a_b
`, map[string]string{"TOKEN": "s3cret"}, `keel.yaml:9: agents[0].tools[1]: a_b brings a tool named a_b_c, as a does`, ""},
		{"unset variable", `
mcp:
  search:
    url: ` + search + `
    headers: {Authorization: "Bearer ${TOKEN}"}
agents: [{id: x, tools: [search]}]
`, nil, `keel.yaml:3: mcp.search: the server did not start: header Authorization: mcpclient: environment variable not set: TOKEN; fix it, or write optional: true`, ""},
		{"cannot start", `
mcp:
  broken: {command: keel-no-such-server}
agents: [{id: x, tools: [broken]}]
`, nil, `keel.yaml:3: mcp.broken: the server did not start: run keel-no-such-server: exec: "keel-no-such-server": executable file not found`, ""},
		{"optional", `
mcp:
  broken: {command: keel-no-such-server, optional: true}
agents: [{id: x, tools: [broken/tool]}]
`, nil, "", `keel.yaml:3: mcp.broken: the server did not start: run keel-no-such-server`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			built, err := buildMCP(t, tt.yaml, tt.env)
			if tt.want != "" {
				var ce *config.Error
				if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &ce) {
					t.Fatalf("Got(Build) = %v; want a *config.Error saying %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := strings.Join(built.Warnings, "\n"); !strings.Contains(w, tt.warning) || !strings.Contains(w, "it is optional") {
				t.Errorf("Got(Warnings) = %q; want %s", w, tt.warning)
			}
			if got := toolNamesOf(built.Agents[0].Tools()); got != "" {
				t.Errorf("Got(tools) = %q; want none from a server that did not start", got)
			}
		})
	}
}

// A stdio server from npm, named in keel.yaml as keel's users name it.
func TestMCPBuildStdio(t *testing.T) {
	cmd := mcptest.Everything(t)
	args, _ := json.Marshal(cmd.Args)
	built, err := buildMCP(t, `
mcp:
  everything: {command: `+cmd.Path+`, args: `+string(args)+`, timeout: 20s}
agents:
  - id: a
    tools: [everything/echo, everything/get-tiny-image]
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNamesOf(built.Agents[0].Tools()); got != "everything_echo everything_get-tiny-image" {
		t.Errorf("Got(tools) = %q; want the two named", got)
	}
	out, err := built.Agents[0].Tools()[0].Execute(context.Background(), tool.Call{Input: json.RawMessage(`{"message":"hi"}`)})
	if err != nil || out != "Echo: hi" {
		t.Errorf("Got(everything_echo) = %v, %v", out, err)
	}
}

var quiet = slog.New(slog.DiscardHandler)
