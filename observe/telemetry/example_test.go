package telemetry_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/observe/telemetry"
)

// An agent given a Telemetry as its Observer counts its runs and model
// calls; the Handler serves them to Prometheus.
func Example() {
	tel, err := telemetry.New(telemetry.Options{Metrics: true})
	if err != nil {
		panic(err)
	}
	a, err := agent.New(agent.Config{ID: "assistant", Model: keeltest.NewModel(keeltest.Reply{Text: "Hello."}), Observer: tel})
	if err != nil {
		panic(err)
	}
	if _, err := a.Generate(context.Background(), []keel.Message{keel.UserText("Hi")}); err != nil {
		panic(err)
	}
	rec := httptest.NewRecorder()
	tel.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "keel_model_call_duration_seconds_count") || strings.HasPrefix(line, "keel_model_tokens_total") {
			fmt.Print(line)
		}
	}
	// Output:
	// keel_model_call_duration_seconds_count{model="scripted",provider="keeltest",status="ok"} 1
	// keel_model_tokens_total{model="scripted",provider="keeltest",type="input"} 10
	// keel_model_tokens_total{model="scripted",provider="keeltest",type="output"} 5
}

// FromEnv reads the sampler from OTEL_TRACES_SAMPLER (unset:
// parentbased_always_on, every trace keel starts) and refuses one it
// cannot use, where the SDK would sample every trace instead.
func ExampleFromEnv() {
	for k, v := range map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
		"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "10%"} {
		old, had := os.LookupEnv(k)
		_ = os.Setenv(k, v)
		defer func() {
			if had {
				_ = os.Setenv(k, old)
			} else {
				_ = os.Unsetenv(k)
			}
		}()
	}
	_, err := telemetry.FromEnv(context.Background())
	fmt.Println(err)

	_ = os.Setenv("OTEL_TRACES_SAMPLER_ARG", "0.1") // one trace in ten
	tp, err := telemetry.FromEnv(context.Background())
	fmt.Println(tp != nil, err)
	if tp != nil {
		_ = tp.Shutdown(context.Background())
	}
	// Output:
	// telemetry: OTEL_TRACES_SAMPLER_ARG=10%: want the share of traces to keep, from 0 to 1, such as 0.1
	// true <nil>
}

// The standard variables give the exporter's URL, headers, timeout and
// compression; a value that would forge a header is refused.
func ExampleExporterConfigFromEnv() {
	vars := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":    "https://collector.example.com:4318",
		"OTEL_EXPORTER_OTLP_HEADERS":     "api-key=s%3Dcret,x-tenant=acme",
		"OTEL_EXPORTER_OTLP_TIMEOUT":     "2500",
		"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
	}
	cfg, err := telemetry.ExporterConfigFromEnv(func(k string) string { return vars[k] })
	if err != nil {
		panic(err)
	}
	fmt.Println(cfg.URL, cfg.Header.Get("Api-Key"), cfg.Timeout, cfg.Gzip)

	vars["OTEL_EXPORTER_OTLP_HEADERS"] = "api-key=x%0D%0AHost:%20elsewhere"
	_, err = telemetry.ExporterConfigFromEnv(func(k string) string { return vars[k] })
	fmt.Println(err)
	// Output:
	// https://collector.example.com:4318/v1/traces s=cret 2.5s true
	// telemetry: OTEL_EXPORTER_OTLP_HEADERS: header api-key: its value holds a control character (such as CR or LF)
}
