package server_test

import (
	"net/http"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/server"
)

// /health and /ready need no token, even when the API does; /ready is
// 200 while the store answers and 503 once it cannot.
func TestHealthAndReady(t *testing.T) {
	store, err := sqlitestore.Open(t.TempDir() + "/keel.db")
	if err != nil {
		t.Fatal(err)
	}
	logs := newLogSink()
	e := newEnv(t, envOptions{model: keeltest.NewModel(), mem: store, token: "s3cret",
		config: func(c *server.Config) { c.Logger = logs.logger() }})
	e.token = "" // the probes send none
	for _, path := range []string{"/health", "/ready"} {
		status, body := e.do("GET", path, nil)
		if v := wantStatus(t, path, status, body, http.StatusOK); v["status"] != "ok" {
			t.Errorf("Got(%s) = %s; want status ok", path, body)
		}
	}
	status, body := e.do("GET", "/api/agents", nil)
	wantError(t, "the API without a token", status, body, http.StatusUnauthorized, "token")

	store.Close()
	status, body = e.do("GET", "/ready", nil)
	if v := wantError(t, "/ready with the store closed", status, body, http.StatusServiceUnavailable, "store"); v["status"] != "unavailable" {
		t.Errorf("Got(/ready) = %s; want status unavailable", body)
	}
	logs.wait(t, "server: not ready: the memory store does not answer", nil)
	status, body = e.do("GET", "/health", nil)
	wantStatus(t, "/health with the store closed", status, body, http.StatusOK)
}

// Without a store there is nothing to be ready for.
func TestReadyWithoutMemory(t *testing.T) {
	e := newEnv(t, envOptions{model: keeltest.NewModel(), config: func(c *server.Config) { c.Memory = nil }})
	status, body := e.do("GET", "/ready", nil)
	wantStatus(t, "/ready without memory", status, body, http.StatusOK)
}
