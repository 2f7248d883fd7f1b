package telemetry_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
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
