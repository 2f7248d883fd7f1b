package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/tool"
)

var quiet = slog.New(slog.DiscardHandler)

// testServer is the Config of the test binary as a stdio server.
func testServer(t testing.TB, extra map[string]string) mcpclient.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{serverEnv: "1"}
	for k, v := range extra {
		env[k] = v
	}
	return mcpclient.Config{Name: "t", Command: exe, Env: env, Timeout: 10 * time.Second, Logger: quiet}
}

func start(t testing.TB, cfg mcpclient.Config) *mcpclient.Client {
	t.Helper()
	c, err := mcpclient.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Got(Start %s) = %v; want it started", cfg.Name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// find returns the tool the model knows as name.
func find(t testing.TB, ts []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, tl := range ts {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("Got(tools) = %v; want one named %s", names(ts), name)
	return tool.Tool{}
}

func names(ts []tool.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func call(t testing.TB, c *mcpclient.Client, name, input string) (any, error) {
	t.Helper()
	return find(t, c.Tools(), name).Execute(context.Background(), tool.Call{ID: "c1", Input: json.RawMessage(input)})
}

func TestToolsAreListedAndNamed(t *testing.T) {
	c := start(t, testServer(t, nil))
	got := names(c.Tools())
	want := []string{"t_echo", "t_picture", "t_structured", "t_fail", "t_sleep", "t_crash", "t_env", "t_add_tool", "t_dot_name"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Got(tool names) = %v; want %v", got, want)
	}
	echo := find(t, c.Tools(), "t_echo")
	if echo.Description != "Echoes the message back." ||
		!strings.Contains(string(echo.InputSchema), `"required":["message"]`) {
		t.Errorf("Got(echo) = %q %s; want the server's description and schema", echo.Description, echo.InputSchema)
	}
	if pic := find(t, c.Tools(), "t_picture"); pic.Description != "A picture and friends" {
		t.Errorf("Got(description of a tool with a title only) = %q; want the title", pic.Description)
	}
	st := c.Status()
	if st.State != mcpclient.Running || st.ServerName != "keel-test-server" || st.PID == 0 || st.Transport != "stdio" {
		t.Errorf("Got(Status) = %+v; want running keel-test-server over stdio with a PID", st)
	}
}

func TestResultsMapToOutputAndFiles(t *testing.T) {
	c := start(t, testServer(t, nil))
	tests := []struct {
		tool, input string
		want        string // the output as JSON
		files       []string
		err         string
	}{
		{tool: "t_echo", input: `{"message":"hi"}`, want: `"echo: hi"`},
		{tool: "t_dot_name", input: `{}`, want: `"dotted"`},
		{tool: "t_picture", input: `{}`,
			want:  `"Here it is:\nsome notes\n[resource link] big.csv: https://example.com/big.csv (text/csv)"`,
			files: []string{"image/png t_picture-1.png", "audio/wav t_picture-2.wav", "application/pdf report.pdf"}},
		{tool: "t_structured", input: `{}`, want: `{"temperature":21}`},
		{tool: "t_fail", input: `{}`, err: "it went wrong: no such city"},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.input, func(t *testing.T) {
			out, err := call(t, c, tt.tool, tt.input)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("Got(%s) = %v, %v; want an error starting %q", tt.tool, out, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var files []keel.FilePart
			if r, ok := out.(tool.Result); ok {
				out, files = r.Output, r.Files
			}
			b, _ := json.Marshal(out)
			if string(b) != tt.want {
				t.Errorf("Got(output) = %s; want %s", b, tt.want)
			}
			var got []string
			for _, f := range files {
				got = append(got, f.MediaType+" "+f.Filename)
			}
			if !slices.Equal(got, tt.files) {
				t.Errorf("Got(files) = %q; want %q", got, tt.files)
			}
			if len(files) > 0 && string(files[0].Data) != string(PNG) {
				t.Errorf("Got(image bytes) = %q; want the server's", files[0].Data)
			}
		})
	}
}

func TestEnvIsExpandedAndSecretsStayHome(t *testing.T) {
	t.Setenv("KEEL_TEST_TOKEN", "s3cret")
	t.Setenv("OPENAI_API_KEY", "must-not-leak")
	c := start(t, testServer(t, map[string]string{"GIVEN": "Bearer ${KEEL_TEST_TOKEN}!"}))
	for _, tt := range []struct{ name, want string }{
		{"GIVEN", `"Bearer s3cret!"`},
		{"OPENAI_API_KEY", `"(unset)"`},
		{"PATH", fmt.Sprintf("%q", os.Getenv("PATH"))},
	} {
		out, err := call(t, c, "t_env", `{"name":"`+tt.name+`"}`)
		b, _ := json.Marshal(out)
		if err != nil || string(b) != tt.want {
			t.Errorf("Got(server's %s) = %s, %v; want %s", tt.name, b, err, tt.want)
		}
	}
}

func TestStartFailures(t *testing.T) {
	exe, _ := os.Executable()
	tests := []struct {
		name string
		cfg  mcpclient.Config
		want []string
	}{
		{"unset variable", mcpclient.Config{Name: "s", Command: exe, Env: map[string]string{"X": "${KEEL_SURELY_UNSET_VAR}"}},
			[]string{"start server s", "env X", "not set: KEEL_SURELY_UNSET_VAR"}},
		{"unset header variable", mcpclient.Config{Name: "h", URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"Authorization": "Bearer ${KEEL_SURELY_UNSET_VAR}"}},
			[]string{"header Authorization", "KEEL_SURELY_UNSET_VAR"}},
		{"no such command", mcpclient.Config{Name: "s", Command: "keel-no-such-mcp-server"},
			[]string{"run keel-no-such-mcp-server", "executable file not found"}},
		{"exits at once", mcpclient.Config{Name: "s", Command: "sh", Args: []string{"-c", "echo 'Error: Cannot find module x' >&2; exit 7"}},
			[]string{"exit status 7", "Cannot find module x"}},
		{"never answers", mcpclient.Config{Name: "s", Command: "sh", Args: []string{"-c", "echo starting >&2; exec sleep 60"}, StartTimeout: 2 * time.Second},
			[]string{"no answer within 2s", "starting"}},
		{"both", mcpclient.Config{Name: "s", Command: "x", URL: "http://x"}, []string{"not both"}},
		{"bad name", mcpclient.Config{Name: "a/b", Command: "x"}, []string{`name "a/b"`}},
		{"bad url", mcpclient.Config{Name: "u", URL: "ftp://x"}, []string{"http:// or https://"}},
		{"http refuses", mcpclient.Config{Name: "u", URL: "http://127.0.0.1:1/mcp", StartTimeout: 2 * time.Second}, []string{"start server u"}},
		{"collision", func() mcpclient.Config { c := testServer(t, map[string]string{toolsEnv: "collide"}); return c }(),
			[]string{`tools "dot.name" and "dot_name" are both t_dot_name`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Logger = quiet
			begin := time.Now()
			c, err := mcpclient.Start(context.Background(), tt.cfg)
			if err == nil {
				c.Close()
				t.Fatalf("Got(Start) = nil; want an error")
			}
			var se *mcpclient.StartError
			if !errors.As(err, &se) {
				t.Errorf("Got(error type) = %T; want *StartError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Got(Start) = %v; want it to say %q", err, w)
				}
			}
			if d := time.Since(begin); d > 8*time.Second {
				t.Errorf("Got(time to fail) = %s; want a prompt failure", d)
			}
		})
	}
}

func TestCrashMidCallRestarts(t *testing.T) {
	c := start(t, testServer(t, nil))
	pid := c.Status().PID
	_, err := call(t, c, "t_crash", `{}`)
	if err == nil || !strings.Contains(err.Error(), "stopped during the call") || !strings.Contains(err.Error(), "exit status 3") ||
		!strings.Contains(err.Error(), "crashing on purpose") {
		t.Fatalf("Got(call of a crashing tool) = %v; want an error saying the server stopped, how, and its last words", err)
	}
	// The next call waits for the server to be back.
	out, err := call(t, c, "t_echo", `{"message":"again"}`)
	if err != nil || out != "echo: again" {
		t.Fatalf("Got(call after the crash) = %v, %v; want the restarted server's answer", out, err)
	}
	st := c.Status()
	if st.Restarts != 1 || st.State != mcpclient.Running || st.PID == pid || st.PID == 0 {
		t.Errorf("Got(Status after a crash) = %+v; want running again, restarted once, a new PID", st)
	}
	waitFor(t, 2*time.Second, "the crashed server to be gone", func() bool { return !processAlive(pid) })
}

func TestHangingCallTimesOutAndIsCancelled(t *testing.T) {
	log := filepath.Join(t.TempDir(), "server.log")
	cfg := testServer(t, map[string]string{logEnv: log})
	cfg.Timeout = 400 * time.Millisecond
	c := start(t, cfg)
	begin := time.Now()
	_, err := call(t, c, "t_sleep", `{"ms":60000}`)
	if err == nil || !strings.Contains(err.Error(), "no answer within 400ms") {
		t.Fatalf("Got(a hanging call) = %v; want a timeout", err)
	}
	if d := time.Since(begin); d > 3*time.Second {
		t.Errorf("Got(time of a call with a 400ms timeout) = %s", d)
	}
	// The server heard that the call was cancelled.
	waitFor(t, 5*time.Second, "the server to note the cancellation", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "cancelled")
	})
	// A timeout does not restart the server.
	if out, err := call(t, c, "t_echo", `{"message":"still here"}`); err != nil || out != "echo: still here" || c.Status().Restarts != 0 {
		t.Errorf("Got(call after a timeout) = %v, %v, %d restarts; want the same server", out, err, c.Status().Restarts)
	}
}

func TestCancelledRunCancelsTheCall(t *testing.T) {
	log := filepath.Join(t.TempDir(), "server.log")
	c := start(t, testServer(t, map[string]string{logEnv: log}))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := find(t, c.Tools(), "t_sleep").Execute(ctx, tool.Call{Input: json.RawMessage(`{"ms":60000}`)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Got(call whose context is cancelled) = %v; want context.Canceled", err)
	}
	waitFor(t, 5*time.Second, "the server to note the cancellation", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "cancelled")
	})
}

func TestToolListChanges(t *testing.T) {
	c := start(t, testServer(t, nil))
	late := c.Only("late", "echo")
	if got := names(late.Tools()); !slices.Equal(got, []string{"t_echo"}) {
		t.Errorf("Got(Only(late, echo) before) = %v; want t_echo alone", got)
	}
	if ok, _ := c.Has("late"); ok {
		t.Errorf("Got(Has(late) before) = true")
	}
	if _, err := call(t, c, "t_add_tool", `{}`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "t_late to be listed", func() bool {
		return slices.Contains(names(c.Tools()), "t_late")
	})
	if got := names(late.Tools()); !slices.Equal(got, []string{"t_late", "t_echo"}) {
		t.Errorf("Got(Only(late, echo) after) = %v; want both, in the order asked", got)
	}
	if out, err := call(t, c, "t_late", `{}`); err != nil || out != "late answer" {
		t.Errorf("Got(t_late) = %v, %v", out, err)
	}
}

func TestCloseStopsTheWholeProcessGroup(t *testing.T) {
	exe, _ := os.Executable()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	// A server that starts a child of its own, as npx starts node.
	cfg := mcpclient.Config{Name: "g", Command: "sh", Args: []string{"-c", `sleep 600 & echo $! > "$PIDFILE"; exec "$EXE"`},
		Env: map[string]string{serverEnv: "1", "PIDFILE": pidFile, "EXE": exe}, Logger: quiet}
	c := start(t, cfg)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var child int
	fmt.Sscan(string(b), &child)
	server := c.Status().PID
	if !processAlive(child) || !processAlive(server) {
		t.Fatalf("Got(server %d, its child %d) not running; want both", server, child)
	}
	c.Close()
	if processAlive(server) {
		t.Errorf("Got(server %d after Close) alive; want it reaped", server)
	}
	// A killed process takes a moment to die.
	waitFor(t, 2*time.Second, "the server's child to die", func() bool { return !processAlive(child) })
	if _, err := find(t, c.Tools(), "g_echo").Execute(context.Background(), tool.Call{Input: json.RawMessage(`{"message":"x"}`)}); !errors.Is(err, mcpclient.ErrClosed) {
		t.Errorf("Got(call after Close) = %v; want ErrClosed", err)
	}
	if c.Status().State != mcpclient.Closed {
		t.Errorf("Got(state after Close) = %s", c.Status().State)
	}
}

// processAlive reports whether pid runs (and is not a zombie).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command's closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func waitFor(t testing.TB, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("Got(waited %s for %s); want it sooner", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
