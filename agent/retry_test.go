package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
)

func TestPrefillErrorAddsContinueReminder(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		prefill := &keel.APICallError{Provider: "anthropic", StatusCode: 400,
			Body:    `{"type":"error","error":{"type":"invalid_request_error","message":"This model does not support assistant message prefill. The conversation must end with a user message."}}`,
			Message: "This model does not support assistant message prefill. The conversation must end with a user message."}
		model := keeltest.NewModel(keelReply{Err: prefill}, keelReply{Text: "continued"})
		a := newAgent(t, agent.Config{Model: model})
		input := []keel.Message{keel.UserText("Write a poem"), {Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "Roses"}}}}
		start := time.Now()
		res, _, err := m.run(context.Background(), a, input)
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(start) > 2*time.Second {
			t.Errorf("the prefill retry waited; want no delay")
		}
		if got := model.Calls(); got != 2 {
			t.Fatalf("Got(calls) = %d; want 2", got)
		}
		second := model.Prompts()[1]
		last := second[len(second)-1]
		if last.Role != keel.RoleUser || last.Text() != "<system-reminder>continue</system-reminder>" || !last.IsSystemReminder() {
			t.Errorf("Got(last message of 2nd prompt) = %+v; want the continue reminder", last)
		}
		if len(res.Input) != 3 {
			t.Fatalf("Got(stored input) = %d messages; want the turn plus the reminder", len(res.Input))
		}
		// The metadata Mastra's client and apps read.
		const wantMeta = `{"systemReminder":{"type":"anthropic-prefill-processor-retry"}}`
		if got, err := json.Marshal(res.Input[2].Metadata); err != nil || string(got) != wantMeta {
			t.Errorf("Got(stored reminder metadata) = %s, %v; want %s", got, err, wantMeta)
		}
	})
}

func TestStreamErrorRetryHonoursRetryAfter(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		h := http.Header{}
		h.Set("Retry-After-Ms", "150")
		limited := &keel.APICallError{Provider: "openai", StatusCode: 429, Header: h, Retryable: true, Code: "rate_limit_exceeded"}
		model := keeltest.NewModel(keelReply{Err: limited}, keelReply{Text: "ok"})
		a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{fastRetry()}})
		start := time.Now()
		if _, _, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")}); err != nil {
			t.Fatal(err)
		}
		if waited := time.Since(start); waited < 150*time.Millisecond {
			t.Errorf("Got(wait) = %v; want at least the 150ms the provider asked for", waited)
		}
	})
}

func TestStreamErrorRetryCapsRetryAfter(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		h := http.Header{}
		h.Set("Retry-After", "3600")
		limited := &keel.APICallError{Provider: "openai", StatusCode: 429, Header: h, Retryable: true}
		model := keeltest.NewModel(keelReply{Err: limited}, keelReply{Text: "ok"})
		retry := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 1, Delay: time.Millisecond, MaxRetryAfter: 20 * time.Millisecond})
		a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{retry}})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, _, err := m.run(ctx, a, []keel.Message{keel.UserText("hi")}); err != nil {
			t.Fatalf("run: %v (an uncapped Retry-After of an hour would end in the deadline)", err)
		}
	})
}

func TestUnauthorizedNeverRetried(t *testing.T) {
	for _, status := range []int{401, 403} {
		forModes(t, func(t *testing.T, m mode) {
			denied := &keel.APICallError{Provider: "openai", StatusCode: status, Code: "invalid_api_key"}
			model := keeltest.NewModel(keelReply{Err: denied}, keelReply{Text: "never"})
			a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{fastRetry()}})
			_, _, err := m.run(context.Background(), a, []keel.Message{keel.UserText("x")})
			if !errors.Is(err, denied) {
				t.Fatalf("Got(err) = %v; want the %d unchanged", err, status)
			}
			if got := model.Calls(); got != 1 {
				t.Errorf("Got(calls) = %d; want 1", got)
			}
		})
	}
}

func TestRetryCapPerRun(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		transient := &keel.APICallError{Provider: "openai", StatusCode: 503, Retryable: true}
		model := keeltest.NewModel(keelReply{Err: transient})
		model.RepeatLast = true
		retry := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 10, Delay: time.Millisecond})
		a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{retry}, MaxProcessorRetries: 2})
		_, _, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")})
		if !errors.Is(err, transient) {
			t.Fatalf("Got(err) = %v; want the 503", err)
		}
		if got := model.Calls(); got != 3 {
			t.Errorf("Got(calls) = %d; want 3 (1 + the run's cap of 2 retries)", got)
		}
	})
}

// cancelOnRetry is a stream-error retry processor that cancels the run as
// it decides to wait before retrying: the wait that follows must end at
// once.
type cancelOnRetry struct {
	processor.APIErrorHandler
	cancel context.CancelFunc
}

func (c cancelOnRetry) HandleAPIError(ctx context.Context, e *processor.APIErrorEvent) (processor.Decision, error) {
	d, err := c.APIErrorHandler.HandleAPIError(ctx, e)
	if d.Retry {
		c.cancel()
	}
	return d, err
}

// TestCancellationStopsRetryWait checks that a retry's wait (an hour, as
// the provider asked) ends when the run's context is cancelled, with the
// context's error and no second call.
func TestCancellationStopsRetryWait(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		h := http.Header{}
		h.Set("Retry-After", "3600")
		limited := &keel.APICallError{Provider: "openai", StatusCode: 429, Header: h, Retryable: true}
		model := keeltest.NewModel(keelReply{Err: limited}, keelReply{Text: "never"})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		retry := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 1, Delay: time.Hour, MaxRetryAfter: time.Hour})
		a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{cancelOnRetry{retry, cancel}}})

		done := make(chan error, 1)
		go func() {
			_, _, err := m.run(ctx, a, []keel.Message{keel.UserText("hi")})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Got(err) = %v; want context.Canceled", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the run still waits 30 s after its context was cancelled; want the wait to end at once")
		}
		if got := model.Calls(); got != 1 {
			t.Errorf("Got(calls) = %d; want 1", got)
		}
	})
}
