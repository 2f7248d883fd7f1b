package main_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/keel-go/keel/provider/google/googletest"
)

// By default keel serve counts its work at /metrics on the API's
// address, behind the shared token.
func TestServeMetricsBehindToken(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	s := startServe(t, t.TempDir(), geminiEnv(srv, "KEEL_API_TOKEN=s3cret"), loopback...)
	if !strings.Contains(s.Stderr(), "metrics: "+s.url+"/metrics (with the shared token") {
		t.Errorf("Got(start-up message) = %q; want where the metrics are and that they need the token", s.Stderr())
	}
	if code, body := call(t, "POST", s.url+"/api/agents/assistant/generate", "s3cret", `{"messages":"hi","memory":{"thread":"t1","resource":"r1"}}`); code != 200 {
		t.Fatalf("Got(generate) = %d %s; want 200", code, body)
	}
	if code, _ := call(t, "GET", s.url+"/metrics", "", ""); code != 401 {
		t.Errorf("Got(GET /metrics without the token) = %d; want 401", code)
	}
	code, body := call(t, "GET", s.url+"/metrics", "s3cret", "")
	for _, want := range []string{
		`keel_run_duration_seconds_count{agent="assistant",status="ok"} 1`,
		`keel_model_call_duration_seconds_count{model="gemini-2.5-flash",provider="google",status="ok"} 1`,
		`keel_store_duration_seconds_count{op="save_messages",status="ok"} 1`,
	} {
		if code != 200 || !strings.Contains(string(body), want) {
			t.Errorf("Got(GET /metrics) = %d without %q; want it", code, want)
		}
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

// server.metrics.addr serves them on a listener of their own, without a
// token; the API's address then has no /metrics.
func TestServeMetricsOwnAddress(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("server:\n  metrics: {addr: '127.0.0.1:0'}\nagents:\n  - id: assistant\n"))
	s := startServe(t, dir, geminiEnv(srv, "KEEL_API_TOKEN=s3cret"), loopback...)
	m := regexp.MustCompile(`metrics: (http://127\.0\.0\.1:\d+/metrics) \(no token`).FindStringSubmatch(s.Stderr())
	if m == nil {
		t.Fatalf("Got(start-up message) = %q; want the metrics' own address", s.Stderr())
	}
	if code, _ := call(t, "GET", s.url+"/api/agents", "s3cret", ""); code != 200 {
		t.Errorf("Got(GET /api/agents) = %d; want 200", code)
	}
	if code, body := call(t, "GET", m[1], "", ""); code != 200 || !strings.Contains(string(body), `keel_http_request_duration_seconds_count{method="GET",route="/api/agents",status="200"} 1`) {
		t.Errorf("Got(GET %s without a token) = %d; want 200 with keel's metrics", m[1], code)
	}
	if code, _ := call(t, "GET", s.url+"/metrics", "s3cret", ""); code != 404 {
		t.Errorf("Got(GET /metrics on the API's address) = %d; want 404", code)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
}

// With OTEL_EXPORTER_OTLP_ENDPOINT, keel serve sends its spans over
// OTLP/HTTP, the last ones before it exits.
func TestServeExportsTraces(t *testing.T) {
	var mu sync.Mutex
	var names []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil || r.URL.Path != "/v1/traces" {
			http.Error(w, "not OTLP/HTTP", http.StatusBadRequest)
			return
		}
		mu.Lock()
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, sp := range ss.GetSpans() {
					names = append(names, sp.GetName())
				}
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	srv := googletest.NewServer(t, googletest.Options{})
	s := startServe(t, t.TempDir(), geminiEnv(srv, "OTEL_EXPORTER_OTLP_ENDPOINT="+collector.URL), loopback...)
	if !strings.Contains(s.Stderr(), "traces: OTLP/HTTP to "+collector.URL) {
		t.Errorf("Got(start-up message) = %q; want where traces go", s.Stderr())
	}
	if code, body := call(t, "POST", s.url+"/api/agents/assistant/generate", "", `{"messages":"hi"}`); code != 200 {
		t.Fatalf("Got(generate) = %d %s; want 200", code, body)
	}
	if err := s.stop(t); err != nil {
		t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
	}
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(names, ", ")
	for _, want := range []string{"POST /api/agents/{id}/generate", "invoke_agent assistant", "chat gemini-2.5-flash"} {
		if !strings.Contains(got, want) {
			t.Errorf("Got(spans received) %s; want %q among them", got, want)
		}
	}
}
