package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
)

// TestRetryEventCarriesDelay: a stream says how long it waits before each
// retry, so that a client can tell its user.
func TestRetryEventCarriesDelay(t *testing.T) {
	transient := &keel.APICallError{Provider: "openai", StatusCode: 503, Retryable: true}
	model := keeltest.NewModel(keelReply{Err: transient}, keelReply{Text: "back"})
	retry := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 1, Delay: 20 * time.Millisecond})
	a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{retry}})
	var retries []agent.Event
	for ev, err := range a.Stream(context.Background(), []keel.Message{keel.UserText("hi")}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == agent.EventRetry {
			retries = append(retries, ev)
		}
	}
	if len(retries) != 1 || retries[0].Delay != 20*time.Millisecond || retries[0].Err != transient {
		t.Errorf("Got(retry events) = %+v; want one after the 503, waiting 20ms", retries)
	}
}
