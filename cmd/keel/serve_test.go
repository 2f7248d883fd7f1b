package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// loopback makes keel serve listen on a free loopback port.
var loopback = []string{"--addr", "127.0.0.1:0"}

// served is a running keel serve process.
type served struct {
	cmd  *exec.Cmd
	url  string // such as http://127.0.0.1:41234
	done chan error

	mu     sync.Mutex
	stderr bytes.Buffer
}

// Stderr returns what the process wrote to standard error so far.
func (s *served) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// startServe starts keel serve in dir with args (callers pass --addr
// 127.0.0.1:0 for a free loopback port) and waits until it listens. The process is killed when the test ends, if it still
// runs.
func startServe(t *testing.T, dir string, environ []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(keelBin, append([]string{"serve"}, args...)...)
	cmd.Dir, cmd.Env = dir, environ
	return startServeCmd(t, cmd)
}

// startServeCmd starts cmd, which runs keel serve (perhaps through
// another program), and waits until it listens.
func startServeCmd(t *testing.T, cmd *exec.Cmd) *served {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("Got(start keel serve) = %v; want nil", err)
	}
	s := &served{cmd: cmd, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "keel serve: listening on "); ok {
				addr <- strings.TrimSuffix(rest, "/api")
			}
		}
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-s.done
		}
	})
	select {
	case s.url = <-addr:
	case err := <-s.done:
		s.done <- err
		t.Fatalf("Got(keel serve) exited with %v before listening; want it to listen\nstderr: %s", err, s.Stderr())
	case <-time.After(30 * time.Second):
		t.Fatalf("Got(keel serve) silent for 30 s; want it to listen\nstderr: %s", s.Stderr())
	}
	return s
}

// stop sends SIGTERM and waits for the exit.
func (s *served) stop(t *testing.T) error {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("Got(keel serve after SIGTERM) still running after 30 s; want it stopped\nstderr: %s", s.Stderr())
		return nil
	}
}

func call(t *testing.T, method, url, token, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("Got(%s %s) = %v; want an answer", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Got(read %s %s) = %v; want the body", method, url, err)
	}
	return resp.StatusCode, b
}

func TestServeAnswersAndStopsGracefully(t *testing.T) {
	// The model holds stream calls back until keel has begun to stop, so
	// that one is running when the server is told to stop.
	release := make(chan struct{})
	var releaseOnce sync.Once
	releaseStreams := func() { releaseOnce.Do(func() { close(release) }) }
	srv := googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, _ int) (providertest.Reply, bool) {
		if r.Stream {
			<-release
		}
		return providertest.Reply{}, false
	}})
	t.Cleanup(releaseStreams) // before the model server closes
	dir := t.TempDir()
	s := startServe(t, dir, geminiEnv(srv), loopback...)
	for _, w := range []string{"agents: assistant (google/gemini-2.5-flash)", "storage: keel.db", "only this machine can connect", "KEEL_API_TOKEN",
		"sandbox commands run isolated by bubblewrap", "limits per sandbox"} {
		if !strings.Contains(s.Stderr(), w) {
			t.Errorf("Got(start-up message) = %q; want it to say %q", s.Stderr(), w)
		}
	}
	if strings.Contains(s.Stderr(), "WARN") {
		t.Errorf("Got(start-up message) = %q; want no warning with a model and bubblewrap", s.Stderr())
	}

	code, body := call(t, "GET", s.url+"/api/agents", "", "")
	var agents map[string]struct {
		Provider string `json:"provider"`
		ModelID  string `json:"modelId"`
	}
	if err := json.Unmarshal(body, &agents); code != 200 || err != nil || agents["assistant"].ModelID != "gemini-2.5-flash" {
		t.Fatalf("Got(GET /api/agents) = %d %s; want 200 with assistant on gemini-2.5-flash", code, body)
	}
	code, body = call(t, "POST", s.url+"/api/agents/assistant/generate", "", `{"messages":"Hi","memory":{"thread":"th-1","resource":"u1"}}`)
	var gen struct{ Text string }
	if err := json.Unmarshal(body, &gen); code != 200 || err != nil || gen.Text != googletest.DefaultText {
		t.Fatalf("Got(generate) = %d %s; want 200 with the model's text", code, body)
	}

	// A stream under way when SIGTERM comes finishes before keel exits.
	type streamed struct {
		body string
		err  error
	}
	got := make(chan streamed, 1)
	go func() {
		resp, err := http.Post(s.url+"/api/agents/assistant/stream", "application/json", strings.NewReader(`{"messages":"Tell me"}`))
		if err != nil {
			got <- streamed{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- streamed{body: string(b), err: err}
	}()
	// SIGTERM once the model has the stream's call, which it holds back.
	for deadline := time.Now().Add(10 * time.Second); !hasStreamCall(srv); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Got(stream call at the model) = none after 10 s; want one\nstderr: %s", s.Stderr())
		}
	}
	// The stream's call goes on once keel says it is stopping: the
	// shutdown is under way while the stream still runs.
	stopping := make(chan bool, 1)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(s.Stderr(), "keel serve: stopping") && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		stopping <- strings.Contains(s.Stderr(), "keel serve: stopping")
		releaseStreams()
	}()
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0\nstderr: %s", err, s.Stderr())
	}
	if !<-stopping {
		t.Errorf("Got(stderr after SIGTERM) = %q; want keel serve: stopping within 30 s", s.Stderr())
	}
	st := <-got
	if st.err != nil || !strings.HasSuffix(st.body, "data: [DONE]\n\n") || !strings.Contains(st.body, `"type":"finish"`) {
		t.Errorf("Got(stream cut by shutdown) = %q, %v; want it read to data: [DONE]", st.body, st.err)
	}
	if !strings.Contains(s.Stderr(), "keel serve: stopped") {
		t.Errorf("Got(stderr) = %q; want keel serve: stopped", s.Stderr())
	}
	if _, err := http.Get(s.url + "/api/agents"); err == nil {
		t.Errorf("Got(GET after stop) = nil error; want the port closed")
	}
}

func hasStreamCall(srv *googletest.Server) bool {
	for _, r := range srv.Requests() {
		if r.Stream {
			return true
		}
	}
	return false
}

func TestServeToken(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	s := startServe(t, t.TempDir(), geminiEnv(srv, "KEEL_API_TOKEN=s3cret"), loopback...)
	if !strings.Contains(s.Stderr(), "Authorization: Bearer $KEEL_API_TOKEN") {
		t.Errorf("Got(start-up message) = %q; want it to say a token is required", s.Stderr())
	}
	if code, body := call(t, "GET", s.url+"/api/agents", "", ""); code != 401 || !strings.Contains(string(body), `"error"`) {
		t.Errorf("Got(GET without token) = %d %s; want 401 {error}", code, body)
	}
	if code, _ := call(t, "GET", s.url+"/api/agents", "wrong", ""); code != 401 {
		t.Errorf("Got(GET with a wrong token) = %d; want 401", code)
	}
	if code, body := call(t, "GET", s.url+"/api/agents", "s3cret", ""); code != 200 {
		t.Errorf("Got(GET with the token) = %d %s; want 200", code, body)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

func TestServeWithoutModel(t *testing.T) {
	s := startServe(t, t.TempDir(), env(), loopback...)
	if !strings.Contains(s.Stderr(), "WARNING") || !strings.Contains(s.Stderr(), "KEEL_MODEL") {
		t.Errorf("Got(start-up message) = %q; want a warning naming KEEL_MODEL", s.Stderr())
	}
	code, body := call(t, "POST", s.url+"/api/agents/assistant/generate", "", `{"messages":"Hi"}`)
	if code < 400 || !strings.Contains(string(body), "KEEL_MODEL") {
		t.Errorf("Got(generate without a model) = %d %s; want an error naming KEEL_MODEL", code, body)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

func TestServeWithoutBubblewrap(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	// Run by root, unisolated commands run as the sandboxes' own user,
	// who must be able to reach them.
	dir := sandboxtest.ReachableTempDir(t)
	// A PATH without bwrap stands for a machine without bubblewrap.
	noBwrap := append(geminiEnv(srv), "PATH="+t.TempDir())
	// It starts, saying once that sandbox commands are off and how to
	// install bubblewrap.
	s := startServe(t, dir, noBwrap, "--addr", "127.0.0.1:0")
	if n := strings.Count(s.Stderr(), "sandbox commands are off"); n != 1 || !strings.Contains(s.Stderr(), "apt-get install bubblewrap") {
		t.Errorf("Got(start-up message) = %q; want one warning that commands are off and how to install bubblewrap", s.Stderr())
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
	s = startServe(t, dir, noBwrap, "--addr", "127.0.0.1:0", "--sandbox-unisolated")
	if !strings.Contains(s.Stderr(), "WARNING") || !strings.Contains(s.Stderr(), "UNISOLATED") {
		t.Errorf("Got(start-up message) = %q; want a loud warning that commands run unisolated", s.Stderr())
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

func TestServeInsecureBind(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	s := startServe(t, t.TempDir(), geminiEnv(srv), "--addr", "0.0.0.0:0", "--insecure-bind")
	if !strings.Contains(s.Stderr(), "WARNING: auth: none, and not on loopback") {
		t.Errorf("Got(start-up message) = %q; want a warning that anyone can connect", s.Stderr())
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(s.url, "http://"), "]:")
	if port == "" {
		_, port, _ = strings.Cut(strings.TrimPrefix(s.url, "http://"), ":")
	}
	if code, body := call(t, "GET", "http://127.0.0.1:"+port+"/api/agents", "", ""); code != 200 {
		t.Errorf("Got(GET /api/agents on %s) = %d %s; want 200", port, code, body)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

func TestServeKeelYAML(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	// keel.yaml in the working directory is read without --config; its
	// server.addr and tokenEnv apply.
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte(`server:
  addr: 127.0.0.1:0
  tokenEnv: SUPPORT_TOKEN
agents:
  - id: support
    name: Support
    model: google/gemini-2.5-flash
  - id: analyst
    tools: [read_file]
`))
	s := startServe(t, dir, geminiEnv(srv, "SUPPORT_TOKEN=t0k"))
	if !strings.Contains(s.Stderr(), "agents: support (google/gemini-2.5-flash), analyst (google/gemini-2.5-flash)") {
		t.Errorf("Got(start-up message) = %q; want both agents of keel.yaml", s.Stderr())
	}
	if code, _ := call(t, "GET", s.url+"/api/agents/support", "", ""); code != 401 {
		t.Errorf("Got(GET without $SUPPORT_TOKEN) = %d; want 401", code)
	}
	code, body := call(t, "GET", s.url+"/api/agents/analyst", "t0k", "")
	if code != 200 || !strings.Contains(string(body), `"read_file":{`) || strings.Contains(string(body), `"run_command":{`) {
		t.Errorf("Got(GET analyst) = %d %s; want 200 with read_file only", code, body)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

// With KEEL_JWT_SECRET, keel serve takes per-user tokens, says so at
// start, and may listen beyond loopback; each user acts for the
// resource of its token.
func TestServePerUserTokens(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	secret := "serve-test-secret-of-at-least-32-bytes"
	s := startServe(t, t.TempDir(), geminiEnv(srv, "KEEL_JWT_SECRET="+secret, "KEEL_CORS_ORIGINS=http://localhost:5173"), "--addr", "0.0.0.0:0")
	for _, want := range []string{"auth: per-user tokens (HS256 with the shared secret; resource from claim sub)", "cors: browser apps from http://localhost:5173 may call (KEEL_CORS_ORIGINS)"} {
		if !strings.Contains(s.Stderr(), want) {
			t.Errorf("Got(start-up message) = %q; want %q", s.Stderr(), want)
		}
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(s.url, "http://"), "]:")
	if port == "" {
		_, port, _ = strings.Cut(strings.TrimPrefix(s.url, "http://"), ":")
	}
	url := "http://127.0.0.1:" + port
	if code, _ := call(t, "GET", url+"/api/agents", "", ""); code != 401 {
		t.Errorf("Got(GET without a token) = %d; want 401", code)
	}
	alice := hs256(t, secret, "alice")
	code, body := call(t, "POST", url+"/api/agents/assistant/generate", alice, `{"messages":"hi","memory":{"thread":"a-1"}}`)
	if code != 200 || !strings.Contains(string(body), `"resourceId":"alice"`) {
		t.Errorf("Got(alice's generate) = %d %s; want 200 as alice", code, body)
	}
	if code, body := call(t, "GET", url+"/api/memory/threads/a-1", hs256(t, secret, "bob"), ""); code != 404 {
		t.Errorf("Got(bob reads alice's thread) = %d %s; want 404", code, body)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

// hs256 is an HS256 token for sub, valid for an hour.
func hs256(t *testing.T, secret, sub string) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": sub, "exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
