package server_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/server"
)

// GET /metrics is Config.Metrics when it is set, behind the shared token
// (a user's token is 403, none is 401), and no route when it is not.
func TestMetricsRoute(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("keel_requests_total 1\n"))
	})
	e := newEnv(t, envOptions{model: keeltest.NewModel(), token: "s3cret", config: func(c *server.Config) {
		c.Metrics, c.Users = metrics, oneUser{}
	}})
	resp := e.send("GET", server.MetricsPath, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "keel_requests_total 1\n" {
		t.Errorf("Got(/metrics with the shared token) = %d %q; want 200 and the handler's text", resp.StatusCode, body)
	}
	e.token = "a-user-token"
	status, body := e.do("GET", server.MetricsPath, nil)
	wantError(t, "/metrics with a user's token", status, body, http.StatusForbidden, "shared token")
	e.token = ""
	status, body = e.do("GET", server.MetricsPath, nil)
	wantError(t, "/metrics without a token", status, body, http.StatusUnauthorized, "token")

	off := newEnv(t, envOptions{model: keeltest.NewModel()})
	resp = off.send("GET", server.MetricsPath, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("Got(/metrics without Config.Metrics) = %d; want 404", resp.StatusCode)
	}
}

// Config.MCP is served at /mcp behind the API's token: the shared token
// acts for any resource, a user's token for its own (CallerResource), no
// token is 401. Without Config.MCP there is no route.
func TestMCPMountBehindTheToken(t *testing.T) {
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("caller=" + server.CallerResource(r.Context())))
	})
	e := newEnv(t, envOptions{model: keeltest.NewModel(), token: "s3cret", config: func(c *server.Config) {
		c.MCP, c.Users = mcp, oneUser{}
	}})
	for _, c := range []struct{ token, want string }{{"s3cret", "caller="}, {"a-user-token", "caller=r"}} {
		e.token = c.token
		resp := e.send("POST", server.MCPPath, "{}")
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != c.want {
			t.Errorf("Got(/mcp with token %s) = %d %q; want 200 %q", c.token, resp.StatusCode, body, c.want)
		}
	}
	e.token = ""
	status, body := e.do("POST", server.MCPPath, "{}")
	wantError(t, "/mcp without a token", status, body, http.StatusUnauthorized, "token")

	off := newEnv(t, envOptions{model: keeltest.NewModel()})
	resp := off.send("POST", server.MCPPath, "{}")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("Got(/mcp without Config.MCP) = %d; want 404", resp.StatusCode)
	}
}
