package processor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
)

// retryBumper answers every error with a retry, so that tests can raise a
// run's retry count the way the agent does: through the pipeline.
type retryBumper struct{}

func (retryBumper) ID() string { return "test-retry-bumper" }

func (retryBumper) HandleAPIError(context.Context, *processor.APIErrorEvent) (processor.Decision, error) {
	return processor.Decision{Retry: true}, nil
}

// bumpRetries raises run's retry count by n.
func bumpRetries(t *testing.T, run *processor.Run, n int) {
	t.Helper()
	p := processor.NewPipeline([]processor.Processor{retryBumper{}}, 100)
	for range n {
		if d := p.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: errors.New("x")}); !d.Retry {
			t.Fatalf("bumpRetries: pipeline did not retry")
		}
	}
}

const prefillText = "This model does not support assistant message prefill. The conversation must end with a user message."

func TestPrefillErrorHandler(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		retries int
		want    bool
	}{
		{"anthropic message", &keel.APICallError{Provider: "anthropic", StatusCode: 400, Message: prefillText}, 0, true},
		{"body only", &keel.APICallError{StatusCode: 400, Body: `{"error":{"message":"` + prefillText + `"}}`}, 0, true},
		{"wrapped", fmt.Errorf("agent: step 0: %w", &keel.APICallError{StatusCode: 400, Body: prefillText}), 0, true},
		{"joined", errors.Join(errors.New("stream ended"), &keel.APICallError{StatusCode: 400, Body: prefillText}), 0, true},
		{"plain error any case", errors.New("model DOES NOT SUPPORT ASSISTANT MESSAGE PREFILL"), 0, true},
		{"other 400", &keel.APICallError{StatusCode: 400, Message: "messages: at least one message is required"}, 0, false},
		{"not first failure", &keel.APICallError{StatusCode: 400, Message: prefillText}, 1, false},
		{"nil error", nil, 0, false},
	}
	h := processor.NewPrefillErrorHandler()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := processor.NewRun("r", nil)
			bumpRetries(t, run, tt.retries)
			d, err := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: tt.err})
			if err != nil {
				t.Fatalf("Got(%q) error = %v; want nil", tt.name, err)
			}
			if d.Retry != tt.want || d.Delay != 0 {
				t.Fatalf("Got(%q) = %+v; want Retry %v, no delay", tt.name, d, tt.want)
			}
			added := run.AddedMessages()
			if !tt.want {
				if len(added) != 0 {
					t.Fatalf("Got(%q) added = %v; want none", tt.name, added)
				}
				return
			}
			if len(added) != 1 {
				t.Fatalf("Got(%q) added %d messages; want 1", tt.name, len(added))
			}
			m := added[0]
			if m.Role != keel.RoleUser || m.Text() != "<system-reminder>continue</system-reminder>" || len(m.Parts) != 1 {
				t.Errorf("Got(%q) message = %+v; want one user text part with the reminder", tt.name, m)
			}
			// The shape Mastra's client and its apps read.
			const wantMeta = `{"systemReminder":{"type":"anthropic-prefill-processor-retry"}}`
			if got, err := json.Marshal(m.Metadata); err != nil || string(got) != wantMeta || !m.IsSystemReminder() {
				t.Errorf("Got(%q) metadata = %s, %v; want %s", tt.name, got, err, wantMeta)
			}
		})
	}
}

func TestPrefillErrorHandlerID(t *testing.T) {
	if got := processor.NewPrefillErrorHandler().ID(); got != "prefill-error-handler" {
		t.Errorf("Got(ID) = %q; want %q", got, "prefill-error-handler")
	}
}

// TestPrefillErrorHandlerOncePerRun checks that a second prefill refusal
// in the same run, after the pipeline counted the first retry, adds no
// second reminder.
func TestPrefillErrorHandlerOncePerRun(t *testing.T) {
	run := processor.NewRun("r", nil)
	p := processor.NewPipeline([]processor.Processor{processor.NewPrefillErrorHandler()}, 3)
	ev := &processor.APIErrorEvent{Run: run, Err: &keel.APICallError{StatusCode: 400, Message: prefillText}}
	if d := p.HandleAPIError(context.Background(), ev); !d.Retry {
		t.Fatalf("Got(first) = %+v; want a retry", d)
	}
	if d := p.HandleAPIError(context.Background(), ev); d.Retry {
		t.Fatalf("Got(second) = %+v; want no retry", d)
	}
	if n := len(run.AddedMessages()); n != 1 {
		t.Errorf("Got(added) = %d; want 1", n)
	}
}

func ExamplePrefillErrorHandler() {
	h := processor.NewPrefillErrorHandler()
	run := processor.NewRun("run-1", nil)
	refusal := &keel.APICallError{Provider: "anthropic", StatusCode: 400, Message: prefillText}

	d, _ := h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: refusal})
	added := run.AddedMessages()[0]
	fmt.Println(d.Retry, d.Delay)
	meta, _ := json.Marshal(added.Metadata)
	fmt.Println(added.Role, added.Text(), added.IsSystemReminder())
	fmt.Println(string(meta))
	// Output:
	// true 0s
	// user <system-reminder>continue</system-reminder> true
	// {"systemReminder":{"type":"anthropic-prefill-processor-retry"}}
}
