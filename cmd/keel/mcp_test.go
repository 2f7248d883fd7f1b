package main_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/internal/mcptest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpConfig writes a keel.yaml whose agent, assistant, takes tools (by
// default two tools of server-everything, which runs over stdio), and
// returns its path.
func mcpConfig(t *testing.T, dir string, tools ...string) string {
	t.Helper()
	if len(tools) == 0 {
		tools = []string{"everything/echo", "everything/get-tiny-image"}
	}
	cmd := mcptest.Everything(t)
	args, _ := json.Marshal(cmd.Args)
	path := filepath.Join(dir, "keel.yaml")
	writeFile(t, path, []byte(`mcp:
  everything:
    command: `+cmd.Path+`
    args: `+string(args)+`
agents:
  - id: assistant
    model: `+geminiModel+`
    tools: [`+strings.Join(tools, ", ")+`]
`))
	return path
}

// A model on Gemini's wire calls an MCP server's tools through keel run;
// the results, the image among them, are stored in the thread.
func TestRunWithMCPTools(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, n int) (providertest.Reply, bool) {
		switch n {
		case 0:
			return providertest.Reply{Body: googletest.ToolCallBody("c1", "everything_echo", `{"message":"ping"}`)}, true
		case 1:
			return providertest.Reply{Body: googletest.ToolCallBody("c2", "everything_get-tiny-image", `{}`)}, true
		}
		return providertest.Reply{}, false
	}})
	dir := t.TempDir()
	mcpConfig(t, dir)
	db := filepath.Join(dir, "k.db")
	res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--new-thread", "t1", "--db", db, "Echo ping, then show me the logo")
	out := decode[runJSON](t, "run output", res.stdout)
	if out.Text != googletest.DefaultText {
		t.Errorf("Got(text) = %q; want the model's answer after the tools", out.Text)
	}
	if strings.Contains(res.stderr, "WARNING") {
		t.Errorf("Got(stderr) = %q; want no warning: keel run says only what is wrong", res.stderr)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("Got(model calls) = %d; want 3 (echo, image, answer)", len(reqs))
	}
	first, _ := reqs[0].Decode()
	var declared []string
	for _, tl := range first.Tools {
		for _, d := range tl.FunctionDeclarations {
			declared = append(declared, d.Name)
		}
	}
	if strings.Join(declared, " ") != "everything_echo everything_get-tiny-image" {
		t.Errorf("Got(functions declared) = %v; want the two MCP tools", declared)
	}
	second := string(reqs[1].Body)
	if !strings.Contains(second, `Echo: ping`) {
		t.Errorf("Got(second call) = %s; want the echo's result", second)
	}
	third, _ := reqs[2].Decode()
	if mts := third.InlineMediaTypes(); len(mts) != 1 || mts[0] != "image/png" {
		t.Errorf("Got(files of the third call) = %v; want the tool's image", mts)
	}

	// The thread keeps the tool message with the image, as a file.
	show := mustKeel(t, dir, env(), "threads", "show", "--json", "--db", db, "t1")
	thread := decode[showOut](t, "threads show", show.stdout)
	var roles, files []string
	for _, m := range thread.Messages {
		roles = append(roles, m.Role)
		for _, f := range m.Files {
			files = append(files, m.Role+":"+f.Name+":"+f.MediaType)
		}
	}
	if strings.Join(roles, " ") != "user assistant tool assistant tool assistant" {
		t.Errorf("Got(stored roles) = %v; want the calls, the results and the answer", roles)
	}
	if strings.Join(files, " ") != "tool:everything_get-tiny-image-1.png:image/png" {
		t.Errorf("Got(stored files) = %v; want the image in the tool message", files)
	}
}

// keelMCP starts keel mcp as an MCP client does, and connects the SDK's
// client to it.
func keelMCP(t *testing.T, dir string, environ []string, args ...string) (*sdk.ClientSession, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(keelBin, append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env = dir, environ
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sess, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("Got(connect to keel mcp) = %v; want a session\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() { sess.Close() })
	return sess, stderr
}

// lockedBuffer is a buffer a process writes to while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// keel mcp, as a built binary, driven by the MCP SDK's client: the
// default agent answers over stdio, and a spreadsheet its model refuses
// is handled and reported.
func TestMCPCommand(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	sess, stderr := keelMCP(t, dir, geminiEnv(srv), "--db", db, "--sandbox", filepath.Join(dir, "sb"), "--resource", "ide")
	tools, err := sess.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "ask_assistant" {
		t.Fatalf("Got(tools) = %+v, %v; want ask_assistant", tools, err)
	}
	res, err := sess.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_assistant", Arguments: map[string]any{
		"message": "How many leads are from Berlin?",
		"files":   []map[string]any{{"name": "leads.xlsx", "data": base64.StdEncoding.EncodeToString(xlsxBytes())}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Content[0].(*sdk.TextContent).Text != googletest.DefaultText {
		t.Fatalf("Got(ask) = %+v; want the model's answer\nstderr: %s", res.Content, stderr.String())
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct {
		ThreadID, ResourceID string
		Recoveries           []struct {
			Action string
			Files  []struct{ Name, Path string }
		}
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.ResourceID != "ide" || len(out.Recoveries) != 1 || out.Recoveries[0].Action != "uploaded" ||
		out.Recoveries[0].Files[0].Name != "leads.xlsx" || !strings.HasPrefix(out.Recoveries[0].Files[0].Path, "/home/user/uploads/") {
		t.Errorf("Got(structured result) = %s; want resource ide, leads.xlsx uploaded to the sandbox", b)
	}
	if !strings.Contains(stderr.String(), "keel mcp: storage: "+db+"; tools: ask_assistant; serving MCP") {
		t.Errorf("Got(stderr) = %q; want keel's start-up lines there", stderr.String())
	}
	sess.Close()
	// The thread is in the store, for keel threads and keel serve.
	show := mustKeel(t, dir, env(), "threads", "show", "--json", "--db", db, "--resource", "ide", out.ThreadID)
	if thread := decode[showOut](t, "threads show", show.stdout); len(thread.Messages) != 2 || len(thread.Messages[0].Files) != 1 {
		t.Errorf("Got(stored thread) = %+v; want the question with its file, and the answer", thread.Messages)
	}
}

func TestMCPCommandErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp", "extra"}, 2, `unexpected "extra"`},
		{[]string{"mcp", "--agent", "nobody"}, 2, `--agent "nobody": no such agent`},
		{[]string{"mcp", "--resource", "a b"}, 2, `--resource "a b"`},
	} {
		res := keel(t, dir, env(), tt.args...)
		if res.code != tt.code || !strings.Contains(res.stderr, tt.want) || res.stdout != "" {
			t.Errorf("Got(keel %v) = %d, stdout %q, stderr %q; want %d saying %q, nothing on stdout", tt.args, res.code, res.stdout, res.stderr, tt.code, tt.want)
		}
	}
	// A server that cannot start stops keel mcp with its line, and says
	// nothing on standard output, which is the protocol's.
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("mcp:\n  broken: {command: keel-no-such-server}\nagents:\n  - id: a\n    tools: [broken]\n"))
	res := keel(t, dir, env(), "mcp", "--db", filepath.Join(dir, "k.db"))
	if res.code != 1 || res.stdout != "" || !strings.Contains(res.stderr, "keel.yaml:2: mcp.broken: the server did not start") {
		t.Errorf("Got(keel mcp with a broken server) = %d, stdout %q, stderr %q; want 1 and the line", res.code, res.stdout, res.stderr)
	}
}

// The MCP project's inspector, from npm, drives keel mcp from its command
// line as a user would check a server.
func TestMCPInspector(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	inspector := mcptest.Inspector(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		full := append(append([]string{}, inspector.Args...), "--cli", keelBin, "mcp", "--db", db, "--sandbox", filepath.Join(dir, "sb"))
		cmd := exec.CommandContext(ctx, inspector.Path, append(full, args...)...)
		cmd.Dir = dir
		// The inspector hands its own environment to the server it starts.
		cmd.Env = geminiEnv(srv)
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("Got(inspector %v) = %v\nstdout: %s\nstderr: %s", args, err, out, stderr)
		}
		return string(out)
	}
	list := run("--method", "tools/list")
	if !strings.Contains(list, `"name": "ask_assistant"`) || !strings.Contains(list, `"threadId"`) {
		t.Errorf("Got(inspector tools/list) = %s; want ask_assistant and its schema", list)
	}
	call := run("--method", "tools/call", "--tool-name", "ask_assistant", "--tool-arg", "message=Hello from the inspector")
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal([]byte(call), &res); err != nil {
		t.Fatalf("Got(inspector tools/call) = %s; want JSON", call)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].Text != googletest.DefaultText {
		t.Errorf("Got(inspector tools/call) = %s; want the model's answer", call)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("Got(store after the inspector's call) = %v; want it written", err)
	}
}

// keel serve starts the MCP servers its agents name: a run through its
// API calls them, the thread keeps the result, and the servers stop with
// keel.
func TestServeWithMCPTools(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, n int) (providertest.Reply, bool) {
		if n == 0 {
			return providertest.Reply{Body: googletest.ToolCallBody("c1", "everything_echo", `{"message":"over http"}`)}, true
		}
		return providertest.Reply{}, false
	}})
	dir := t.TempDir()
	mcpConfig(t, dir)
	s := startServe(t, dir, geminiEnv(srv), loopback...)
	if !strings.Contains(s.Stderr(), "mcp servers: everything (stdio, ") {
		t.Errorf("Got(start-up message) = %q; want the MCP server announced", s.Stderr())
	}
	code, body := call(t, "POST", s.url+"/api/agents/assistant/generate", "", `{"messages":"Echo over http","memory":{"thread":"m-1","resource":"u1"}}`)
	var gen struct{ Text string }
	if err := json.Unmarshal(body, &gen); code != 200 || err != nil || gen.Text != googletest.DefaultText {
		t.Fatalf("Got(generate) = %d %s; want 200 with the model's text", code, body)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "Echo: over http") {
		t.Errorf("Got(model calls) = %d; want 2, the second with the echo's result", len(reqs))
	}
	// The tool routes list the server and run its tool outside a run.
	if code, body := call(t, "GET", s.url+"/api/mcp/v0/servers", "", ""); code != 200 ||
		!strings.Contains(string(body), `"id":"everything"`) || !strings.Contains(string(body), `"everything_echo"`) {
		t.Errorf("Got(GET /api/mcp/v0/servers) = %d %s; want everything with its tools", code, body)
	}
	if code, body := call(t, "POST", s.url+"/api/agents/assistant/tools/everything_echo/execute", "", `{"data":{"message":"direct"}}`); code != 200 ||
		!strings.Contains(string(body), "Echo: direct") {
		t.Errorf("Got(execute everything_echo) = %d %s; want 200 with the echo", code, body)
	}
	// The server's process is keel's child while keel serves, and gone
	// once keel stopped.
	children := childPIDs(t, s.cmd.Process.Pid)
	if len(children) == 0 {
		t.Fatalf("Got(children of keel serve) = none; want the MCP server")
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
	for _, pid := range children {
		if err := syscall.Kill(pid, 0); err == nil {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(b), ") Z ") {
				t.Errorf("Got(MCP server %d after keel stopped) alive; want it stopped with keel", pid)
			}
		}
	}
}

// childPIDs returns the processes whose parent is pid: each of its
// threads lists the children it started.
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	if err != nil || len(tasks) == 0 {
		t.Skipf("skipped: /proc does not list children here: %v", err)
	}
	var out []int
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
