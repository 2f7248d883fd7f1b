package main_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// dockerConfig is a keel.yaml whose agent keeps its sandboxes in Docker.
const dockerConfig = `agents:
  - id: assistant
    tools: [run_command, read_file, list_files]
    sandbox:
      engine: docker
      image: ` + dockertest.Image + `
      limits: {processes: 64, memory: 512MiB}
`

// TestServeDocker: keel serve says at start that sandboxes run in Docker,
// on which engine, with which image and limits.
func TestServeDocker(t *testing.T) {
	e := dockertest.Engine(t)
	prefix := dockertest.Prefix(t, e)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte(dockerConfig))
	host := os.Getenv(dockersandbox.EnvHost)
	s := startServe(t, dir, env("KEEL_MODEL="+geminiModel, "GOOGLE_GENERATIVE_AI_API_KEY=test-key",
		dockersandbox.EnvHost+"="+host, "KEEL_SANDBOX_PREFIX="+prefix), loopback...)
	for _, w := range []string{"sandboxes in Docker containers", "dockersandbox: sandbox commands run in containers of Docker",
		dockertest.Image, "64 processes", "512 MiB memory", "stops after 15m0s without a command"} {
		if !strings.Contains(s.Stderr(), w) {
			t.Errorf("Got(start-up message) = %q; want it to say %q", s.Stderr(), w)
		}
	}
	if strings.Contains(s.Stderr(), "bubblewrap") {
		t.Errorf("Got(start-up message) = %q; want no word of bubblewrap for docker sandboxes", s.Stderr())
	}
	if _, err := os.Stat(filepath.Join(dir, ".keel", "sandbox")); !os.IsNotExist(err) {
		t.Errorf("Got(Stat of the local sandbox root) error %v; want none made", err)
	}
}

// TestServeDockerUnreachable: with no engine keel serve stops at start,
// saying where it looked and what to do.
func TestServeDockerUnreachable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte(dockerConfig))
	sock := filepath.Join(sandboxtest.ReachableTempDir(t), "none.sock")
	res := keel(t, dir, env("KEEL_MODEL="+geminiModel, "GOOGLE_GENERATIVE_AI_API_KEY=test-key",
		dockersandbox.EnvHost+"=unix://"+sock), append([]string{"serve"}, loopback...)...)
	if res.code == 0 || !strings.Contains(res.stderr, sock) || !strings.Contains(res.stderr, "start dockerd") ||
		!strings.Contains(res.stderr, "agent assistant") {
		t.Errorf("Got(keel serve without an engine) = exit %d, %q; want a failure naming %s and what to do", res.code, res.stderr, sock)
	}
}

// TestServeDockerTwoServers runs two keel serve processes on one
// PostgreSQL and one Docker engine, with a sandbox per thread: a file the
// model refused on the first is listed and downloaded, byte for byte,
// through the second (GET /api/agents/{id}/sandbox/files), a command run
// through the second reads it, and deleting
// the thread through the second removes its sandbox, container and
// volume, from the engine both share.
func TestServeDockerTwoServers(t *testing.T) {
	e := dockertest.Engine(t)
	prefix := dockertest.Prefix(t, e)
	url := pgtest.Start(t)
	// The model asks, on a turn it is told to check the upload, for a
	// command that reads it: the md5 of its bytes (the path holds their
	// SHA-256 already).
	var upload atomic.Pointer[string]
	srv := googletest.NewServer(t, googletest.Options{Internal: []string{xlsxType}, Respond: func(r googletest.Request, _ int) (providertest.Reply, bool) {
		if p := upload.Load(); p != nil && bytes.Contains(r.Body, []byte("Check the upload")) && !bytes.Contains(r.Body, []byte("functionResponse")) {
			call := `{"functionCall":{"name":"run_command","args":{"command":"md5sum ` + *p + `"}}}`
			return providertest.Reply{Body: `{"candidates":[{"content":{"role":"model","parts":[` + call + `]},"finishReason":"STOP","index":0}],` +
				`"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`}, true
		}
		return providertest.Reply{}, false
	}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte(strings.Replace(dockerConfig, "engine: docker\n", "engine: docker\n      resolution: per-thread\n", 1)))
	const token = "s3cret"
	environ := geminiEnv(srv, "KEEL_API_TOKEN="+token, dockersandbox.EnvHost+"="+os.Getenv(dockersandbox.EnvHost), "KEEL_SANDBOX_PREFIX="+prefix)
	one := startServe(t, dir, environ, append([]string{"--db", url}, loopback...)...)
	two := startServe(t, dir, environ, append([]string{"--db", url}, loopback...)...)

	data := leads(t)
	body := `{"messages":[{"role":"user","content":[{"type":"text","text":"Count the leads"},{"type":"file","data":"data:` + xlsxType +
		`;base64,` + base64.StdEncoding.EncodeToString(data) + `","mediaType":"` + xlsxType + `","filename":"leads.xlsx"}]}],"memory":{"thread":"th-d","resource":"u1"}}`
	if code, resp := call(t, "POST", one.url+"/api/agents/assistant/generate", token, body); code != 200 {
		t.Fatalf("Got(generate on the first server) = %d %s; want 200", code, resp)
	}

	code, resp := call(t, "GET", two.url+"/api/agents/assistant/sandbox/files?resourceId=u1&threadId=th-d", token, "")
	var listed struct {
		Mode  string
		Files []struct {
			Path string
			Size int64
		}
	}
	if err := json.Unmarshal(resp, &listed); code != 200 || err != nil || listed.Mode != "per-thread" || len(listed.Files) != 1 ||
		!strings.HasPrefix(listed.Files[0].Path, "uploads/") || listed.Files[0].Size != int64(len(data)) {
		t.Fatalf("Got(files through the second server) = %d %s; want the per-thread sandbox holding the %d-byte upload", code, resp, len(data))
	}
	path := listed.Files[0].Path
	code, got := call(t, "GET", two.url+"/api/agents/assistant/sandbox/files/"+path+"?resourceId=u1&threadId=th-d", token, "")
	if code != 200 || !bytes.Equal(got, data) {
		t.Errorf("Got(download through the second server) = %d, %d bytes; want 200 and the %d bytes sent to the first", code, len(got), len(data))
	}

	// A command run through the second server reads what the first
	// uploaded.
	upload.Store(&path)
	check := `{"messages":"Check the upload","memory":{"thread":"th-d","resource":"u1"}}`
	if code, resp := call(t, "POST", two.url+"/api/agents/assistant/generate", token, check); code != 200 {
		t.Fatalf("Got(generate on the second server) = %d %s; want 200", code, resp)
	}
	reqs := srv.Requests()
	sum := md5.Sum(data)
	if last := reqs[len(reqs)-1].Body; !bytes.Contains(last, []byte("functionResponse")) || !bytes.Contains(last, []byte(hex.EncodeToString(sum[:]))) {
		t.Errorf("Got(the model's last request) = %.600s; want the command's result holding the md5 of the uploaded bytes", last)
	}

	if code, resp := call(t, "DELETE", two.url+"/api/memory/threads/th-d?resourceId=u1", token, ""); code != 200 {
		t.Fatalf("Got(delete the thread through the second server) = %d %s; want 200", code, resp)
	}
	// What the engine holds of the thread's sandbox, asked as a third
	// party would: no container, no volume; a sandbox of the thread made
	// again is empty.
	ctx := context.Background()
	r, err := dockersandbox.NewResolver(ctx, e, localsandbox.PerThread, dockersandbox.Options{Image: dockertest.Image, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := r.Key(workspace.Scope{ThreadID: "th-d"})
	filters := neturl.QueryEscape(`{"label":["` + dockersandbox.LabelPrefix + "=" + prefix + `","` + dockersandbox.LabelKey + "=" + key + `"]}`)
	var found []json.RawMessage
	engineGet(t, "/containers/json?all=1&filters="+filters, &found)
	var vols struct{ Volumes []json.RawMessage }
	engineGet(t, "/volumes?filters="+filters, &vols)
	if len(found) != 0 || len(vols.Volumes) != 0 {
		t.Errorf("Got(%d containers, %d volumes of the deleted thread); want none", len(found), len(vols.Volumes))
	}
	sb, err := r.Resolve(ctx, workspace.Scope{ThreadID: "th-d"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.(workspace.FileSystem).Stat(ctx, path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(Stat(%s) in the thread's sandbox made again) error %v; want fs.ErrNotExist", path, err)
	}
}

// engineGet decodes the answer of the engine at $DOCKER_HOST (a unix
// socket, as the tests' engine is) to GET path into out.
func engineGet(t *testing.T, path string, out any) {
	t.Helper()
	sock, ok := strings.CutPrefix(os.Getenv(dockersandbox.EnvHost), "unix://")
	if !ok {
		sock = "/var/run/docker.sock"
	}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := c.Get("http://engine" + path)
	if err != nil {
		t.Fatalf("Got(GET %s from the engine) error %v", path, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); resp.StatusCode != 200 || err != nil {
		t.Fatalf("Got(GET %s from the engine) = %d, %v; want 200 and JSON", path, resp.StatusCode, err)
	}
}
