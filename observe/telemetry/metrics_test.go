package telemetry_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/keel-go/keel/observe/telemetry"
)

// After one real run over HTTP, /health and /ready answer, /metrics needs
// the shared token, and each metric holds what the run did.
func TestMetricsAfterRun(t *testing.T) {
	tel, err := telemetry.New(telemetry.Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, tel)
	for _, path := range []string{"/health", "/ready"} {
		if status, body := r.do("GET", path, ""); status != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
			t.Errorf("Got(GET %s) = %d %s; want 200 ok", path, status, body)
		}
	}
	if status, _ := r.do("GET", "/metrics", ""); status != http.StatusUnauthorized {
		t.Errorf("Got(GET /metrics without a token) = %d; want 401", status)
	}
	if status, _ := r.do("GET", "/metrics", "", "Authorization", "Bearer "+userToken); status != http.StatusForbidden {
		t.Errorf("Got(GET /metrics with a user's token) = %d; want 403", status)
	}
	res := r.generate()
	if res["text"] != "The workbook holds one sheet." {
		t.Fatalf("Got(text) = %v; want the scripted answer", res["text"])
	}

	status, body := r.do("GET", "/metrics", "", "Authorization", "Bearer "+token)
	if status != http.StatusOK {
		t.Fatalf("Got(GET /metrics) = %d %s; want 200", status, body)
	}
	families := parse(t, body)
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"keel_http_request_duration_seconds", map[string]string{"method": "POST", "route": "/api/agents/{id}/generate", "status": "200"}, 1},
		{"keel_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/health", "status": "200"}, 1},
		{"keel_http_request_duration_seconds", map[string]string{"method": "GET", "route": "none", "status": "401"}, 1}, // refused before routing
		{"keel_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/metrics", "status": "403"}, 1},
		{"keel_run_duration_seconds", map[string]string{"agent": "analyst", "status": "ok"}, 1},
		{"keel_model_call_duration_seconds", map[string]string{"provider": "keeltest", "model": "scripted", "status": "unsupported"}, 1},
		{"keel_model_call_duration_seconds", map[string]string{"provider": "keeltest", "model": "scripted", "status": "ok"}, 2},
		{"keel_model_tokens_total", map[string]string{"provider": "keeltest", "model": "scripted", "type": "input"}, 20},
		{"keel_model_tokens_total", map[string]string{"provider": "keeltest", "model": "scripted", "type": "output"}, 10},
		{"keel_model_retries_total", map[string]string{"processor": "unsupported-file-handler"}, 1},
		{"keel_recoveries_total", map[string]string{"processor": "unsupported-file-handler", "action": "uploaded", "cause": "unsupported-functionality"}, 1},
		{"keel_tool_call_duration_seconds", map[string]string{"tool": "run_command", "status": "ok"}, 1},
		{"keel_sandbox_command_duration_seconds", map[string]string{"status": "ok"}, 1},
		{"keel_sandbox_uploads_total", map[string]string{"status": "written"}, 1},
		{"keel_sandbox_upload_bytes_total", nil, float64(len(fileBody))},
		{"keel_store_duration_seconds", map[string]string{"op": "get_thread", "status": "not-found"}, 1},   // /ready's probe
		{"keel_store_duration_seconds", map[string]string{"op": "thread_owner", "status": "not-found"}, 1}, // the turn finds its thread new and reads it no more
		{"keel_store_duration_seconds", map[string]string{"op": "start_thread", "status": "ok"}, 1},        // the turn's input
		{"keel_store_duration_seconds", map[string]string{"op": "save_messages", "status": "ok"}, 1},       // the reply
	}
	for _, tc := range tests {
		if got, ok := value(families, tc.name, tc.labels); !ok || got != tc.want {
			t.Errorf("Got(%s%v) = %v (found %v); want %v", tc.name, tc.labels, got, ok, tc.want)
		}
	}
	if _, ok := families["go_goroutines"]; !ok {
		t.Errorf("Got(metrics) without go_goroutines; want the Go runtime's metrics too")
	}
	// The latency histograms measure: a run takes longer than its first
	// model call, which took more than nothing.
	if sum, _ := histogramSum(families, "keel_run_duration_seconds", map[string]string{"agent": "analyst", "status": "ok"}); sum <= 0 {
		t.Errorf("Got(run duration sum) = %v; want above 0", sum)
	}
}

// scrape reads tel's metrics as Prometheus does.
func scrape(t *testing.T, tel *telemetry.Telemetry) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return parse(t, rec.Body.Bytes())
}

func parse(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("Got(parse /metrics) error %v; want Prometheus text", err)
	}
	return families
}

// value returns a counter's value or a histogram's count, of the series
// with exactly labels.
func value(families map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	m, ok := series(families, name, labels)
	if !ok {
		return 0, false
	}
	if h := m.GetHistogram(); h != nil {
		return float64(h.GetSampleCount()), true
	}
	return m.GetCounter().GetValue(), true
}

func histogramSum(families map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	m, ok := series(families, name, labels)
	return m.GetHistogram().GetSampleSum(), ok
}

func series(families map[string]*dto.MetricFamily, name string, labels map[string]string) (*dto.Metric, bool) {
	f, ok := families[name]
	if !ok {
		return nil, false
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		return m, true
	}
	return nil, false
}
