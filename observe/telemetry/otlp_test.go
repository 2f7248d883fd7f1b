package telemetry_test

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/keel-go/keel/observe/telemetry"
)

// receiver is an OTLP/HTTP trace receiver: it decodes each
// ExportTraceServiceRequest and keeps its spans.
type receiver struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
	bad      []string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	var req collectortrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &req)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
		rc.bad = append(rc.bad, r.URL.Path+" "+r.Header.Get("Content-Type"))
		http.Error(w, "not an OTLP/HTTP trace export", http.StatusBadRequest)
		return
	}
	for _, rs := range req.GetResourceSpans() {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" {
				rc.services = append(rc.services, kv.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.GetScopeSpans() {
			rc.spans = append(rc.spans, ss.GetSpans()...)
		}
	}
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// One run, exported by the OTLP/HTTP exporter FromEnv configures from the
// standard variables, arrives at a local receiver as protobuf with its
// spans' names and attributes.
func TestRunExportedOverOTLPHTTP(t *testing.T) {
	rc := &receiver{}
	collector := httptest.NewServer(rc)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "keel-under-test")
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER"} {
		t.Setenv(v, "")
	}
	tp, err := telemetry.FromEnv(context.Background())
	if err != nil || tp == nil {
		t.Fatalf("Got(FromEnv) = %v, %v; want a provider", tp, err)
	}
	tel, err := telemetry.New(telemetry.Options{TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, tel)
	r.generate("traceparent", "00-"+remoteTrace+"-"+remoteParent+"-01")
	// Shutdown sends what the batcher holds: the receiver has it all when
	// it returns.
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatalf("Got(Shutdown) error %v; want the spans sent", err)
	}

	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.bad) > 0 {
		t.Errorf("Got(requests the receiver could not read) %v; want none", rc.bad)
	}
	if len(rc.services) == 0 || rc.services[0] != "keel-under-test" {
		t.Errorf("Got(service.name) = %v; want OTEL_SERVICE_NAME's keel-under-test", rc.services)
	}
	byName := map[string][]*tracepb.Span{}
	for _, s := range rc.spans {
		byName[s.GetName()] = append(byName[s.GetName()], s)
	}
	for name, n := range map[string]int{"POST /api/agents/{id}/generate": 1, "invoke_agent analyst": 1, "keel.step": 2,
		"chat scripted": 3, "keel.processor api-error": 1, "execute_tool run_command": 1, "keel.sandbox.command": 1,
		"keel.sandbox.upload": 1} {
		if len(byName[name]) != n {
			t.Errorf("Got(%d exported spans %q); want %d", len(byName[name]), name, n)
		}
	}
	req := byName["POST /api/agents/{id}/generate"]
	if len(req) == 1 && (traceHex(req[0].GetTraceId()) != remoteTrace || traceHex(req[0].GetParentSpanId()) != remoteParent ||
		req[0].GetKind() != tracepb.Span_SPAN_KIND_SERVER) {
		t.Errorf("Got(request span) trace %x parent %x kind %v; want the caller's trace and parent, server", req[0].GetTraceId(),
			req[0].GetParentSpanId(), req[0].GetKind())
	}
	var tokens int64
	for _, c := range byName["chat scripted"] {
		attrs := attrMap(c.GetAttributes())
		if attrs["gen_ai.provider.name"].GetStringValue() != "keeltest" || attrs["gen_ai.request.model"].GetStringValue() != "scripted" {
			t.Errorf("Got(model call attributes) %v; want gen_ai.provider.name keeltest, gen_ai.request.model scripted", attrs)
		}
		tokens += attrs["gen_ai.usage.input_tokens"].GetIntValue()
	}
	if tokens != 20 {
		t.Errorf("Got(input tokens over the calls) = %d; want 20", tokens)
	}
	if d := byName["keel.processor api-error"]; len(d) == 1 {
		attrs := attrMap(d[0].GetAttributes())
		if !attrs["keel.decision.retry"].GetBoolValue() || attrs["keel.decision.processor"].GetStringValue() != "unsupported-file-handler" {
			t.Errorf("Got(decision attributes) %v; want a retry by unsupported-file-handler", attrs)
		}
	}
}

func attrMap(kvs []*commonpb.KeyValue) map[string]*commonpb.AnyValue {
	m := make(map[string]*commonpb.AnyValue, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = kv.GetValue()
	}
	return m
}

func traceHex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// The variables decide whether keel traces at all; what it cannot do,
// and a sampler the SDK would not know (it would sample everything
// instead), is an error saying what to set.
func TestTracingFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		enabled bool
		wantErr bool
	}{
		{name: "unset", env: nil},
		{name: "endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, enabled: true},
		{name: "traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, enabled: true},
		{name: "exporter otlp alone", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, enabled: true},
		{name: "exporter none", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}},
		{name: "sdk disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, enabled: true, wantErr: true},
		{name: "zipkin", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}, enabled: true, wantErr: true},
		{name: "sampler one in ten", env: sampler("parentbased_traceidratio", "0.1"), enabled: true},
		{name: "sampler ratio, no argument", env: sampler("traceidratio", ""), enabled: true},
		{name: "sampler always off", env: sampler(" Always_Off ", ""), enabled: true},
		{name: "sampler misspelt", env: sampler("parentbased_traceidration", "0.1"), enabled: true, wantErr: true},
		{name: "sampler from another SDK", env: sampler("jaeger_remote", ""), enabled: true, wantErr: true},
		{name: "sampler ratio a percentage", env: sampler("parentbased_traceidratio", "10%"), enabled: true, wantErr: true},
		{name: "sampler ratio above one", env: sampler("traceidratio", "10"), enabled: true, wantErr: true},
		{name: "sampler ratio negative", env: sampler("traceidratio", "-0.1"), enabled: true, wantErr: true},
		{name: "sampler ratio NaN", env: sampler("traceidratio", "NaN"), enabled: true, wantErr: true},
	}
	vars := []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
		"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range vars {
				t.Setenv(v, tc.env[v])
			}
			getenv := func(k string) string { return tc.env[k] }
			if got := telemetry.TracingEnabled(getenv); got != tc.enabled {
				t.Errorf("Got(TracingEnabled) = %v; want %v", got, tc.enabled)
			}
			tp, err := telemetry.FromEnv(context.Background())
			if (err != nil) != tc.wantErr || (tp != nil) != (tc.enabled && !tc.wantErr) {
				t.Errorf("Got(FromEnv) = %v, %v; want a provider %v, an error %v", tp, err, tc.enabled && !tc.wantErr, tc.wantErr)
			}
			if tp != nil {
				_ = tp.Shutdown(context.Background())
			}
		})
	}
}

// sampler is an environment with an endpoint and OTEL_TRACES_SAMPLER, and
// OTEL_TRACES_SAMPLER_ARG when arg is not empty.
func sampler(name, arg string) map[string]string {
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_SAMPLER": name}
	if arg != "" {
		env["OTEL_TRACES_SAMPLER_ARG"] = arg
	}
	return env
}
