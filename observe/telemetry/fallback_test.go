package telemetry_test

import (
	"context"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/observe/telemetry"
)

// namedModel is a scripted model with a name of its own.
type namedModel struct {
	*keeltest.Model
	name string
}

func (m namedModel) Name() string { return m.name }

// A run that falls back to the next model reports each call under the
// model it called.
func TestModelCallsOfAFallback(t *testing.T) {
	tel, err := telemetry.New(telemetry.Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	primary := namedModel{keeltest.NewModel(keeltest.Reply{Err: &keel.APICallError{Provider: "keeltest", StatusCode: 503, Message: "overloaded"}}), "primary"}
	backup := namedModel{keeltest.NewModel(keeltest.Reply{Text: "From the backup."}), "backup"}
	a, err := agent.New(agent.Config{ID: "a", Models: []agent.ModelEntry{{Model: primary, MaxRetries: -1}, {Model: backup}}, Observer: tel})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("hi")})
	if err != nil || res.Text != "From the backup." {
		t.Fatalf("Got(Generate) = %v, %v; want the backup's answer", res, err)
	}
	families := scrape(t, tel)
	for _, tc := range []struct {
		model, status string
	}{{"primary", "503"}, {"backup", "ok"}} {
		labels := map[string]string{"provider": "keeltest", "model": tc.model, "status": tc.status}
		if got, ok := value(families, "keel_model_call_duration_seconds", labels); !ok || got != 1 {
			t.Errorf("Got(model calls %v) = %v (found %v); want 1", labels, got, ok)
		}
	}
}
