package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/tool"
)

func TestToolRoundTrip(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := keeltest.NewModel(
			keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "add", Input: json.RawMessage(`{"a":2,"b":3}`)}}},
			keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c2", Name: "broken", Input: json.RawMessage(`{}`)}, {ID: "c3", Name: "missing"}}},
			keelReply{Text: "2 + 3 = 5"},
		)
		add := tool.Tool{Name: "add", Description: "adds", Execute: func(ctx context.Context, c tool.Call) (any, error) {
			var in struct{ A, B int }
			if err := json.Unmarshal(c.Input, &in); err != nil {
				return nil, err
			}
			return map[string]int{"sum": in.A + in.B}, nil
		}}
		broken := tool.Tool{Name: "broken", Execute: func(ctx context.Context, c tool.Call) (any, error) {
			panic("tool bug")
		}}
		a := newAgent(t, agent.Config{Model: model, Tools: []tool.Tool{add, broken}})
		res, events, err := m.run(context.Background(), a, []keel.Message{keel.UserText("add 2 and 3")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "2 + 3 = 5" || len(res.Steps) != 3 {
			t.Fatalf("Got(text, steps) = %q, %d; want the final answer after 3 steps", res.Text, len(res.Steps))
		}
		want := []keel.ToolResultPart{
			{CallID: "c1", Name: "add", Output: json.RawMessage(`{"sum":5}`)},
			{CallID: "c2", Name: "broken", Output: json.RawMessage(`"tool panicked: tool bug"`), IsError: true},
			{CallID: "c3", Name: "missing", Output: json.RawMessage(`"unknown tool \"missing\""`), IsError: true},
		}
		if got := fmt.Sprintf("%+v", res.ToolResults); got != fmt.Sprintf("%+v", want) {
			t.Errorf("Got(tool results) = %s; want %s", got, fmt.Sprintf("%+v", want))
		}
		second := model.Prompts()[1]
		if last := second[len(second)-1]; last.Role != keel.RoleTool || len(last.Parts) != 1 {
			t.Errorf("Got(last message of 2nd prompt) = %+v; want the tool result", last)
		}
		if m.name == "stream" {
			var types []agent.EventType
			for _, ev := range events {
				if len(types) == 0 || types[len(types)-1] != ev.Type {
					types = append(types, ev.Type)
				}
			}
			want := []agent.EventType{agent.EventStart, agent.EventStepStart, agent.EventToolCall, agent.EventToolResult, agent.EventStepFinish,
				agent.EventStepStart, agent.EventToolCall, agent.EventToolResult, agent.EventStepFinish,
				agent.EventStepStart, agent.EventTextDelta, agent.EventStepFinish, agent.EventFinish}
			if !slices.Equal(types, want) {
				t.Errorf("Got(event types) = %v; want %v", types, want)
			}
			if got := joinEvents(events, agent.EventTextDelta); got != "2 + 3 = 5" {
				t.Errorf("Got(streamed text) = %q", got)
			}
		}
	})
}

func TestMaxSteps(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		call := keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c", Name: "noop"}}}
		model := keeltest.NewModel(call)
		model.RepeatLast = true
		noop := tool.Tool{Name: "noop", Execute: func(context.Context, tool.Call) (any, error) { return "ok", nil }}
		a := newAgent(t, agent.Config{Model: model, Tools: []tool.Tool{noop}, MaxSteps: 3})
		res, _, err := m.run(context.Background(), a, []keel.Message{keel.UserText("loop")})
		if err != nil {
			t.Fatal(err)
		}
		if model.Calls() != 3 || res.FinishReason != keel.FinishToolCalls {
			t.Errorf("Got(calls, finish) = %d, %s; want 3, tool-calls", model.Calls(), res.FinishReason)
		}
	})
}

func TestStreamErrorAfterOutputIsDiscardedOnRetry(t *testing.T) {
	transient := &keel.APICallError{Provider: "openai", StatusCode: 503, Retryable: true}
	retry := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 1, RetryAfterOutput: true})
	model := keeltest.NewModel(keelReply{Text: "half an ans", Err: transient}, keelReply{Text: "a whole answer"})
	a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{retry}})
	var retries []agent.Event
	var text strings.Builder
	for ev, err := range a.Stream(context.Background(), []keel.Message{keel.UserText("hi")}) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Type {
		case agent.EventRetry:
			retries = append(retries, ev)
			text.Reset()
		case agent.EventTextDelta:
			text.WriteString(ev.Text)
		case agent.EventFinish:
			if ev.Result.Text != "a whole answer" {
				t.Errorf("Got(result text) = %q", ev.Result.Text)
			}
		}
	}
	if len(retries) != 1 || !retries[0].Discard {
		t.Errorf("Got(retry events) = %+v; want one that voids the partial output", retries)
	}
	if text.String() != "a whole answer" {
		t.Errorf("Got(text after discarding) = %q", text.String())
	}
}

func TestStreamErrorAfterOutputNotRetriedByDefault(t *testing.T) {
	transient := &keel.APICallError{Provider: "openai", StatusCode: 503, Retryable: true}
	model := keeltest.NewModel(keelReply{Text: "half", Err: transient}, keelReply{Text: "never"})
	a := newAgent(t, agent.Config{Model: model, ErrorProcessors: []processor.Processor{fastRetry()}})
	var err error
	for _, e := range a.Stream(context.Background(), []keel.Message{keel.UserText("hi")}) {
		if e != nil {
			err = e
		}
	}
	if !errors.Is(err, transient) || model.Calls() != 1 {
		t.Errorf("Got(err, calls) = %v, %d; want the 503 after 1 call", err, model.Calls())
	}
}

type panicky struct{}

func (panicky) ID() string { return "panicky" }
func (panicky) HandleAPIError(context.Context, *processor.APIErrorEvent) (processor.Decision, error) {
	panic("processor bug")
}
func (panicky) RewriteLLMRequest(context.Context, *processor.LLMRequest) error {
	panic("processor bug")
}

func TestPanickingProcessorDoesNotBreakRun(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		model := refusingModel("recovered")
		a := newAgent(t, agent.Config{Model: model, InputProcessors: []processor.Processor{panicky{}}})
		res, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "x"}, xlsx("a.xlsx"))})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if res.Text != "recovered" || model.Calls() != 2 {
			t.Errorf("Got(text, calls) = %q, %d; want the unsupported-file handler to recover after the panics", res.Text, model.Calls())
		}
	})
}

func TestConcurrentRunsDoNotShareState(t *testing.T) {
	model := refusingModel("ok")
	model.RepeatLast = true
	store := memory.NewInMemory()
	a := newAgent(t, agent.Config{Model: model, Memory: store})
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := keel.UserText("plain")
			if i%2 == 0 {
				in = userMsg(keel.TextPart{Text: "file"}, xlsx("a.xlsx"))
			}
			opts := []agent.RunOption{agent.WithThread(fmt.Sprintf("t%d", i)), agent.WithResource("u")}
			var err error
			if i%4 < 2 {
				_, err = a.Generate(context.Background(), []keel.Message{in}, opts...)
			} else {
				for _, e := range a.Stream(context.Background(), []keel.Message{in}, opts...) {
					if e != nil {
						err = e
					}
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// 20 runs with a file take 2 calls, 20 without take 1.
	if got := model.Calls(); got != 60 {
		t.Errorf("Got(calls) = %d; want 60", got)
	}
	for _, p := range model.Prompts() {
		parts := userParts(p)
		if slices.Contains(parts, "plain") && slices.Contains(parts, "[Attachment unavailable: a.xlsx]") {
			t.Errorf("Got(prompt) = %q; a run without a file saw another run's rewrite", parts)
		}
	}
}

func TestThreadOfAnotherResource(t *testing.T) {
	store := memory.NewInMemory()
	model := keeltest.NewModel(keelReply{Text: "ok"})
	model.RepeatLast = true
	a := newAgent(t, agent.Config{Model: model, Memory: store})
	ctx := context.Background()
	if _, err := a.Generate(ctx, []keel.Message{keel.UserText("mine")}, agent.WithThread("t"), agent.WithResource("alice")); err != nil {
		t.Fatal(err)
	}
	_, err := a.Generate(ctx, []keel.Message{keel.UserText("theirs")}, agent.WithThread("t"), agent.WithResource("mallory"))
	if !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Got(err) = %v; want memory.ErrNotFound", err)
	}
	if model.Calls() != 1 {
		t.Errorf("Got(calls) = %d; want 1: the model must not see another resource's thread", model.Calls())
	}
}

func TestRunInputErrors(t *testing.T) {
	a := newAgent(t, agent.Config{Model: keeltest.NewModel()})
	ctx := context.Background()
	if _, err := a.Generate(ctx, nil); !errors.Is(err, agent.ErrNoInput) {
		t.Errorf("Got(err) = %v; want ErrNoInput", err)
	}
	if _, err := a.Generate(ctx, []keel.Message{keel.UserText("x")}, agent.WithThread("t")); !errors.Is(err, agent.ErrNoMemory) {
		t.Errorf("Got(err) = %v; want ErrNoMemory", err)
	}
	b := newAgent(t, agent.Config{Model: keeltest.NewModel(), Memory: memory.NewInMemory()})
	if _, err := b.Generate(ctx, []keel.Message{keel.UserText("x")}, agent.WithThread("t")); !errors.Is(err, agent.ErrNoResource) {
		t.Errorf("Got(err) = %v; want ErrNoResource", err)
	}
	if _, err := agent.New(agent.Config{ID: "x"}); !errors.Is(err, agent.ErrInvalidConfig) {
		t.Errorf("Got(err) = %v; want ErrInvalidConfig", err)
	}
}

func TestInputStoredEvenWhenModelFails(t *testing.T) {
	store := memory.NewInMemory()
	boom := &keel.APICallError{Provider: "openai", StatusCode: 400, Message: "bad"}
	a := newAgent(t, agent.Config{Model: keeltest.NewModel(keelReply{Err: boom}), Memory: store})
	ctx := context.Background()
	_, err := a.Generate(ctx, []keel.Message{keel.UserText("keep me")}, agent.WithThread("t"), agent.WithResource("u"))
	if !errors.Is(err, boom) {
		t.Fatalf("Got(err) = %v", err)
	}
	page, err := store.ListMessages(ctx, "u", "t", memory.ListMessagesOptions{})
	if err != nil || len(page.Messages) != 1 || page.Messages[0].Text() != "keep me" {
		t.Errorf("Got(stored) = %+v, %v; want the user's message kept", page.Messages, err)
	}
}
