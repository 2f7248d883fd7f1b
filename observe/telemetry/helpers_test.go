package telemetry_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/observe/telemetry"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
)

const (
	xlsx      = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	token     = "shared-secret"
	userToken = "user-token"
	fileBody  = "PK\x03\x04 a workbook"
)

// rig is a keel server on a scripted model whose one run meets every
// seam: the model refuses the workbook (the unsupported-file handler
// uploads it to a real sandbox and the call is tried again), then calls
// run_command, then answers.
type rig struct {
	t     *testing.T
	srv   *httptest.Server
	model *keeltest.Model
}

func newRig(t *testing.T, tel *telemetry.Telemetry) *rig {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	sb, err := localsandbox.New(t.TempDir(), localsandbox.Options{AllowUnisolated: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	model := keeltest.NewModel(
		keeltest.Reply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsx, MediaType: xlsx}},
		keeltest.Reply{ToolCalls: []keel.ToolCallPart{{ID: "call-1", Name: "run_command", Input: json.RawMessage(`{"command":"echo hi"}`)}}},
		keeltest.Reply{Text: "The workbook holds one sheet."},
	)
	mem := tel.Store(memory.NewInMemory())
	a, err := agent.New(agent.Config{ID: "analyst", Model: model, Memory: mem, Workspace: workspace.New(sb),
		Tools: []tool.Tool{tool.RunCommand()}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Token: token, Users: users{},
		Observer: tel, Metrics: tel.Handler(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return &rig{t: t, srv: hs, model: model}
}

// users accepts one per-user token, for resource "u1".
type users struct{}

func (users) Authenticate(_ context.Context, tok string) (string, error) {
	if tok == userToken {
		return "u1", nil
	}
	return "", errors.New("unknown token")
}

// generate runs the rig's scripted turn, with the extra headers given
// as name, value pairs, and fails the test unless it answers 200.
func (r *rig) generate(header ...string) map[string]any {
	r.t.Helper()
	data := base64.StdEncoding.EncodeToString([]byte(fileBody))
	body := `{"memory":{"thread":"t1","resource":"r1"},"messages":[{"role":"user","content":[` +
		`{"type":"text","text":"what is in it?"},{"type":"file","data":"` + data + `","mediaType":"` + xlsx + `","filename":"leads.xlsx"}]}]}`
	status, b := r.do("POST", "/api/agents/analyst/generate", body, append([]string{"Authorization", "Bearer " + token}, header...)...)
	if status != http.StatusOK {
		r.t.Fatalf("Got(generate) = %d %s; want 200", status, b)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		r.t.Fatal(err)
	}
	return out
}

func (r *rig) do(method, path, body string, header ...string) (int, []byte) {
	r.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.srv.URL+path, rd)
	if err != nil {
		r.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatal(err)
	}
	return resp.StatusCode, b
}
