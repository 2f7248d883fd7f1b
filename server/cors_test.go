package server_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/server"
)

func preflight(e *env, origin, headers string) *http.Response {
	e.t.Helper()
	req := must(http.NewRequest("OPTIONS", e.srv.URL+"/api/agents/support/stream", nil))
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", headers)
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

func TestCORS(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(), token: "secret", config: func(c *server.Config) {
		c.CORSOrigins = []string{"https://App.example.com", "http://localhost:3000"}
	}})
	// A preflight carries no token: it is answered before the token check.
	resp := preflight(e, "https://app.example.com", "content-type, authorization, x-mastra-client-type, traceparent")
	resp.Body.Close()
	h := resp.Header
	if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "https://app.example.com" ||
		h.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("Got(preflight) = %d %v; want 204 allowing the exact origin with credentials", resp.StatusCode, h)
	}
	for _, want := range []string{"content-type", "authorization", "x-mastra-client-type", "x-mastra-dev-playground", "x-resource-id", "traceparent"} {
		if !strings.Contains(h.Get("Access-Control-Allow-Headers"), want) {
			t.Errorf("Got(Access-Control-Allow-Headers) = %q; want %s", h.Get("Access-Control-Allow-Headers"), want)
		}
	}
	if !strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
		t.Errorf("Got(Vary) = %v; want Origin", h.Values("Vary"))
	}

	// Another origin's preflight is refused, saying how to allow it.
	resp = preflight(e, "https://evil.example.com", "content-type")
	body := must(readAll(resp))
	wantError(t, "preflight of another origin", resp.StatusCode, body, 403, "server.cors.origins")
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "" {
		t.Errorf("Got(Access-Control-Allow-Origin) = %q for another origin; want none", got)
	}

	// Real requests of an allowed origin get the headers, errors included,
	// so that the app can read a 401.
	for _, tt := range []struct {
		token  string
		status int
	}{{"secret", 200}, {"wrong", 401}} {
		resp := e.send("GET", "/api/agents", nil, "Origin", "http://localhost:3000", "Authorization", "Bearer "+tt.token)
		resp.Body.Close()
		if resp.StatusCode != tt.status || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" ||
			resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("Got(GET with token %s) = %d, %v; want %d with the CORS headers", tt.token, resp.StatusCode, resp.Header, tt.status)
		}
	}
	resp = e.send("GET", "/api/agents", nil, "Origin", "https://evil.example.com")
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("Got(Access-Control-Allow-Origin) = %q for another origin; want none", resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

// CORS is off by default: no headers, and a preflight is not answered as
// one.
func TestCORSOffByDefault(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel()})
	resp := preflight(e, "https://app.example.com", "content-type")
	resp.Body.Close()
	if resp.StatusCode == http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("Got(preflight without CORS) = %d %v; want no CORS answer", resp.StatusCode, resp.Header)
	}
}

// "*" allows any origin, echoed exactly: never "*" with credentials.
func TestCORSAnyOrigin(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.CORSOrigins = []string{"*"} }})
	resp := preflight(e, "https://anything.example.org:8443", "content-type")
	resp.Body.Close()
	if got := resp.Header.Get("Access-Control-Allow-Origin"); resp.StatusCode != 204 || got != "https://anything.example.org:8443" {
		t.Fatalf("Got(preflight) = %d, origin %q; want 204 echoing the origin", resp.StatusCode, got)
	}
}

func TestCORSBadOrigins(t *testing.T) {
	for _, o := range []string{"app.example.com", "https://app.example.com/path", "ftp://app.example.com", "https://", "https://u:p@app.example.com"} {
		_, err := server.New(server.Config{Agents: nil, CORSOrigins: []string{o}})
		if !errors.Is(err, server.ErrConfig) || !strings.Contains(err.Error(), "scheme://host") {
			t.Errorf("Got(New with origin %q) = %v; want ErrConfig saying scheme://host", o, err)
		}
	}
}

// A preflight's own header names are allowed when each is a token of
// a-z, 0-9, "-", "_" and "." (after lower-casing) of at most 64 bytes;
// others are left out. The names here sit on each range's edges.
func TestCORSRequestedHeaderNames(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) {
		c.CORSOrigins = []string{"https://app.example.com"}
	}})
	long := strings.Repeat("x", 64)
	cases := []struct {
		header string
		want   bool
	}{
		{"x-a", true}, {"x-z", true}, {"x-0", true}, {"x-9", true}, {"x_y.z", true},
		{"X-AZ", true}, // lower-cased first
		{"x-`", false}, {"x-{", false}, {"x-/", false}, {"x-:", false},
		{long, true}, {long + "x", false},
	}
	for _, c := range cases {
		resp := preflight(e, "https://app.example.com", c.header)
		resp.Body.Close()
		allowed := strings.Split(resp.Header.Get("Access-Control-Allow-Headers"), ", ")
		got := false
		for _, h := range allowed {
			got = got || h == strings.ToLower(c.header)
		}
		if resp.StatusCode != http.StatusNoContent || got != c.want {
			t.Errorf("Got(preflight asking for %q) = %d, allowed %q; want 204, %q allowed %v",
				c.header, resp.StatusCode, allowed, c.header, c.want)
		}
	}
}
