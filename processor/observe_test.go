package processor_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
)

// observer records the responses it is told of, or panics.
type observer struct {
	id    string
	panic bool
	seen  *[]string
}

func (o observer) ID() string { return o.id }

func (o observer) ObserveResponse(_ context.Context, r *processor.LLMResponse) {
	if o.panic {
		panic("observer " + o.id)
	}
	*o.seen = append(*o.seen, o.id+":"+r.Model.Name())
}

// TestPipelineObserveResponse checks that every observer is told, in
// order, and that one that panics is logged and skipped.
func TestPipelineObserveResponse(t *testing.T) {
	var seen []string
	var logs bytes.Buffer
	p := processor.NewPipeline([]processor.Processor{
		observer{id: "a", seen: &seen}, observer{id: "b", panic: true, seen: &seen}, observer{id: "c", seen: &seen},
	}, 0)
	run := fileRun(nil, &logs, userMsg(text("hi")))
	p.ObserveResponse(context.Background(), &processor.LLMResponse{Run: run, Prompt: run.Messages, Model: keeltest.NewModel()})
	if want := []string{"a:scripted", "c:scripted"}; !equalStrings(seen, want) {
		t.Errorf("Got(observed) = %q; want %q", seen, want)
	}
	if l := logs.String(); !strings.Contains(l, "processor panicked; skipped") || !strings.Contains(l, "processor=b") {
		t.Errorf("Got(log) = %q; want b's panic logged", l)
	}
}
