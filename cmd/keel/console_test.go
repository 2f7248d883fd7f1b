package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
)

// keel serve answers its console at /, deep links included, without the
// token (the page holds no data), while the API keeps asking for it; the
// agent details say how its sandboxes are shared.
func TestServeConsole(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	s := startServe(t, t.TempDir(), geminiEnv(srv, "KEEL_API_TOKEN=s3cret"), loopback...)
	if !strings.Contains(s.Stderr(), "keel serve: console at "+s.url+"/") {
		t.Errorf("Got(start-up message) = %q; want it to say where the console is", s.Stderr())
	}
	for _, path := range []string{"/", "/threads/th-1?resourceId=u1", "/agents/assistant/chat"} {
		if code, body := call(t, "GET", s.url+path, "", ""); code != 200 || !strings.Contains(string(body), "<title>keel console</title>") {
			t.Errorf("Got(GET %s) = %d %.80q; want the console's page", path, code, body)
		}
	}
	if code, _ := call(t, "GET", s.url+"/api/agents/assistant", "", ""); code != 401 {
		t.Errorf("Got(agent without token) = %d; want 401", code)
	}
	code, body := call(t, "GET", s.url+"/api/agents/assistant", "s3cret", "")
	var a struct {
		Keel struct{ Sandbox string }
	}
	if err := json.Unmarshal(body, &a); code != 200 || err != nil || a.Keel.Sandbox != "per-resource" {
		t.Errorf("Got(agent) = %d %s; want keel.sandbox per-resource", code, body)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}
