package main_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// bearerRT adds a bearer token to every request of the MCP client.
type bearerRT struct{ token string }

func (rt bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if rt.token != "" {
		r.Header.Set("Authorization", "Bearer "+rt.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectServeMCP connects the MCP SDK's client to keel serve's /mcp with
// token ("" for none).
func connectServeMCP(ctx context.Context, s *served, token string) (*sdk.ClientSession, error) {
	return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: s.url + "/mcp", HTTPClient: &http.Client{Transport: bearerRT{token}}}, nil)
}

// keel serve answers MCP at /mcp behind the API's auth: without a token
// the SDK's client is refused; with the shared token it lists ask_assistant
// and asks it for any resource; a user's token asks for its own resource
// only.
func TestServeMCP(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	const secret, backend = "serve-mcp-test-jwt-secret-of-32-bytes-or-more", "serve-mcp-backend-token"
	s := startServe(t, t.TempDir(), geminiEnv(srv, "KEEL_JWT_SECRET="+secret, "KEEL_API_TOKEN="+backend), loopback...)
	if !strings.Contains(s.Stderr(), "MCP (streamable HTTP) at "+s.url+"/mcp") {
		t.Errorf("Got(start-up message) = %q; want the MCP endpoint announced", s.Stderr())
	}
	ctx := context.Background()

	for _, tok := range []struct{ name, token string }{{"no token", ""}, {"forged token", hs256(t, "another-secret-of-32-bytes-or-more-long", "alice")}} {
		if sess, err := connectServeMCP(ctx, s, tok.token); err == nil {
			sess.Close()
			t.Errorf("Got(connect with %s) = a session; want it refused", tok.name)
		}
	}
	code, body := call(t, "POST", s.url+"/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if code != http.StatusUnauthorized {
		t.Errorf("Got(POST /mcp without a token) = %d %s; want 401", code, body)
	}

	ask := func(t *testing.T, token string, args map[string]any) (*sdk.CallToolResult, map[string]any) {
		t.Helper()
		sess, err := connectServeMCP(ctx, s, token)
		if err != nil {
			t.Fatalf("Got(connect) = %v; want a session\nkeel serve: %s", err, s.Stderr())
		}
		defer sess.Close()
		tools, err := sess.ListTools(ctx, nil)
		if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "ask_assistant" {
			t.Fatalf("Got(tools) = %+v, %v; want ask_assistant", tools, err)
		}
		res, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: "ask_assistant", Arguments: args})
		if err != nil {
			t.Fatalf("Got(call ask_assistant) = %v; want a result", err)
		}
		var out map[string]any
		if res.StructuredContent != nil {
			b, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(b, &out)
		}
		return res, out
	}
	tests := []struct {
		name, token  string
		args         map[string]any
		wantErr      string // "" for an answer
		wantResource string
	}{
		{"backend names a resource", backend, map[string]any{"message": "hi", "resourceId": "bob"}, "", "bob"},
		{"backend names none", backend, map[string]any{"message": "hi"}, "", "default"},
		{"user acts for itself", hs256(t, secret, "alice"), map[string]any{"message": "hi"}, "", "alice"},
		{"user names itself", hs256(t, secret, "alice"), map[string]any{"message": "hi", "resourceId": "alice"}, "", "alice"},
		{"user names another", hs256(t, secret, "alice"), map[string]any{"message": "hi", "resourceId": "bob"}, "its own resource only", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, out := ask(t, tt.token, tt.args)
			text := ""
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*sdk.TextContent); ok {
					text = tc.Text
				}
			}
			if tt.wantErr != "" {
				if !res.IsError || !strings.Contains(text, tt.wantErr) {
					t.Errorf("Got(ask) = error %v %q; want a tool error saying %q", res.IsError, text, tt.wantErr)
				}
				return
			}
			if res.IsError || text != googletest.DefaultText || out["resourceId"] != tt.wantResource {
				t.Errorf("Got(ask) = error %v %q, resource %v; want the model's answer for %s", res.IsError, text, out["resourceId"], tt.wantResource)
			}
		})
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

// keel.yaml's server.mcp.allowedHosts lets /mcp answer under a name a
// reverse proxy on the machine forwards, such as keel.example.com; other
// names that reach loopback stay refused, against DNS rebinding.
func TestServeMCPAllowedHosts(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("server:\n  mcp:\n    allowedHosts: [keel.example.com]\nagents:\n  - id: assistant\n    model: "+geminiModel+"\n"))
	s := startServe(t, dir, geminiEnv(srv), loopback...)
	for _, tt := range []struct {
		host string
		code int
	}{
		{"keel.example.com", http.StatusOK},
		{"keel.example.com:443", http.StatusOK},
		{"evil.example", http.StatusForbidden},
		{"", http.StatusOK}, // the address itself, 127.0.0.1:port
	} {
		req, err := http.NewRequest("POST", s.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		if tt.host != "" {
			req.Host = tt.host
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || (tt.code == http.StatusOK && !strings.Contains(string(body), "ask_assistant")) {
			t.Errorf("Got(POST /mcp as Host %q) = %d %s; want %d", tt.host, resp.StatusCode, body, tt.code)
		}
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}

	// A URL where a host belongs is an error at its line, before keel
	// listens.
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("server:\n  mcp:\n    allowedHosts:\n      - https://keel.example.com\nagents:\n  - id: assistant\n    model: "+geminiModel+"\n"))
	res := keel(t, dir, geminiEnv(srv), "serve")
	if res.code == 0 || !strings.Contains(res.stderr, `keel.yaml:4: server.mcp.allowedHosts[0]: "https://keel.example.com": give the host alone, without a scheme`) {
		t.Errorf("Got(keel serve with a URL for a host) = %d, %q; want the mistake at its line", res.code, res.stderr)
	}
}
