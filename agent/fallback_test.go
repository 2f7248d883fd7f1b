package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// named is a scripted model under its own name, so that two of them in
// an agent's list are two models.
type named struct {
	*keeltest.Model
	name string
}

func (m named) Name() string { return m.name }

// always is a model answering every call with reply.
func always(name string, reply keelReply) named {
	m := keeltest.NewModel(reply)
	m.RepeatLast = true
	return named{m, name}
}

func unavailable503() *keel.APICallError {
	return &keel.APICallError{Provider: "keeltest", StatusCode: 503, Retryable: true, Message: "The model is overloaded."}
}

func TestFallbackAfterRetriesGaveUp(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		first := always("first", keelReply{Err: unavailable503()})
		second := always("second", keelReply{Text: "second here"})
		store := memory.NewInMemory()
		a := newAgent(t, agent.Config{Models: []agent.ModelEntry{{Model: first}, {Model: second}},
			Memory: store, ErrorProcessors: []processor.Processor{fastRetry()}})
		res, events, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")},
			agent.WithThread("t1"), agent.WithResource("u1"))
		if err != nil {
			t.Fatalf("Got(run) = %v; want the second model's answer", err)
		}
		// The stream retry's two retries ran on the first model first.
		if first.Calls() != 3 || second.Calls() != 1 {
			t.Errorf("Got(calls) = %d, %d; want 3 on the first model, then 1", first.Calls(), second.Calls())
		}
		if res.Text != "second here" || res.Model != "keeltest/second" || res.Steps[0].Model != "keeltest/second" || res.Steps[0].Attempts != 4 {
			t.Errorf("Got(result) = %q by %q (step %+v); want the second model's answer, named", res.Text, res.Model, res.Steps[0])
		}
		if got := userParts(second.Prompts()[0]); strings.Join(got, "|") != "hi" {
			t.Errorf("Got(second model's prompt) = %q; want the turn as sent", got)
		}
		if m.name == "stream" {
			var fb []agent.Event
			for _, ev := range events {
				if ev.Type == agent.EventFallback {
					fb = append(fb, ev)
				}
			}
			var api *keel.APICallError
			if len(fb) != 1 || fb[0].Model != "keeltest/second" || !errors.As(fb[0].Err, &api) || api.StatusCode != 503 {
				t.Errorf("Got(fallback events) = %+v; want one, to keeltest/second, for the 503", fb)
			}
		}
		page, err := store.ListMessages(context.Background(), "u1", "t1", memory.ListMessagesOptions{})
		if err != nil {
			t.Fatal(err)
		}
		last := page.Messages[len(page.Messages)-1]
		if last.Role != keel.RoleAssistant || last.Metadata[agent.MetadataModel] != "keeltest/second" {
			t.Errorf("Got(stored reply) = %s with %v; want the assistant's, naming keeltest/second", last.Role, last.Metadata)
		}
	})
}

// TestFallbackStartsFromTheOriginalPrompt checks that what the first
// model's processors did is undone for the second: the file the
// unsupported-file handler took out is back, the handler's state is new.
func TestFallbackStartsFromTheOriginalPrompt(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		refuse := &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + xlsxType, MediaType: xlsxType}
		first := named{keeltest.NewModel(keelReply{Err: refuse}, keelReply{Err: unavailable503()}), "first"}
		first.RepeatLast = true
		second := always("second", keelReply{Text: "read it"})
		a := newAgent(t, agent.Config{Models: []agent.ModelEntry{{Model: first}, {Model: second}},
			ErrorProcessors: []processor.Processor{fastRetry()}})
		res, _, err := m.run(context.Background(), a, []keel.Message{userMsg(keel.TextPart{Text: "sum it"}, xlsx("leads.xlsx"))})
		if err != nil || res.Model != "keeltest/second" {
			t.Fatalf("Got(run) = %v, %+v; want the second model's answer", err, res)
		}
		if p := first.Prompts(); countFiles(p[len(p)-1]) != 0 {
			t.Errorf("Got(files in the first model's last prompt) = %d; want the sheet taken out", countFiles(p[len(p)-1]))
		}
		if got := userParts(second.Prompts()[0]); strings.Join(got, "|") != "sum it|file:"+xlsxType {
			t.Errorf("Got(second model's prompt) = %q; want the text and the sheet itself", got)
		}
	})
}

// TestNoFallbackWhenRepairedOnTheSameModel checks that a refused file is
// handled on the model that refused it: the next model is never called.
func TestNoFallbackWhenRepairedOnTheSameModel(t *testing.T) {
	first := named{refusingModel("the sheet's placeholder is here"), "first"}
	second := always("second", keelReply{Text: "never"})
	a := newAgent(t, agent.Config{Models: []agent.ModelEntry{{Model: first}, {Model: second}}})
	res, err := a.Generate(context.Background(), []keel.Message{userMsg(keel.TextPart{Text: "sum it"}, xlsx("leads.xlsx"))})
	if err != nil || res.Model != "keeltest/first" || second.Calls() != 0 {
		t.Fatalf("Got(run) = %v, model %q, %d calls of the second; want the first model's repaired answer", err, res.Model, second.Calls())
	}
}

func TestFallbackOnCallerFaults(t *testing.T) {
	tests := []struct {
		name    string
		err     error
		caller  bool // the caller's fault: surfaces unless configured
		wantMsg string
	}{
		{"401", &keel.APICallError{StatusCode: 401, Message: "invalid key"}, true, "invalid key"},
		{"403", &keel.APICallError{StatusCode: 403, Message: "no access"}, true, "no access"},
		{"400 not about a file", &keel.APICallError{StatusCode: 400, Message: "bad tool schema"}, true, "bad tool schema"},
		{"400 naming a media type", &keel.APICallError{StatusCode: 400, MediaType: "text/csv", Message: "Unsupported MIME type"}, false, ""},
		{"429", &keel.APICallError{StatusCode: 429, Message: "quota"}, false, ""},
		{"500", &keel.APICallError{StatusCode: 500, Message: "internal"}, false, ""},
		{"a connection that failed", errors.New("dial tcp: connection refused"), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := agent.CallerFault(tt.err); got != tt.caller {
				t.Errorf("Got(CallerFault) = %v; want %v", got, tt.caller)
			}
			for _, configured := range []bool{false, true} {
				first := always("first", keelReply{Err: tt.err})
				second := always("second", keelReply{Text: "second here"})
				a := newAgent(t, agent.Config{Models: []agent.ModelEntry{{Model: first, MaxRetries: -1}, {Model: second}},
					FallbackOnCallerErrors: configured, DisableDefaultErrorProcessors: true})
				res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("hi")})
				if tt.caller && !configured {
					if err == nil || !strings.Contains(err.Error(), tt.wantMsg) || second.Calls() != 0 {
						t.Errorf("Got(run) = %v, %d calls of the second; want the first model's error", err, second.Calls())
					}
					continue
				}
				if err != nil || res.Model != "keeltest/second" {
					t.Errorf("Got(run, configured %v) = %v; want the second model's answer", configured, err)
				}
			}
		})
	}
}

// TestFallbackRetriesPerModel checks each entry's MaxRetries: none on
// the first model, so the second is called after one failure.
func TestFallbackRetriesPerModel(t *testing.T) {
	first := always("first", keelReply{Err: unavailable503()})
	second := named{keeltest.NewModel(keelReply{Err: unavailable503()}, keelReply{Text: "ok"}), "second"}
	a := newAgent(t, agent.Config{Models: []agent.ModelEntry{{Model: first, MaxRetries: -1}, {Model: second, MaxRetries: 1}},
		ErrorProcessors: []processor.Processor{fastRetry()}})
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("hi")})
	if err != nil || first.Calls() != 1 || second.Calls() != 2 || res.Model != "keeltest/second" {
		t.Fatalf("Got(run) = %v, calls %d, %d; want 1 call on the first, 2 on the second", err, first.Calls(), second.Calls())
	}
}

func TestFallbackLastModelFails(t *testing.T) {
	first := always("first", keelReply{Err: unavailable503()})
	second := always("second", keelReply{Err: &keel.APICallError{StatusCode: 502, Message: "bad gateway"}})
	a := newAgent(t, agent.Config{Models: []agent.ModelEntry{{Model: first}, {Model: second}}, MaxProcessorRetries: -1})
	_, err := a.Generate(context.Background(), []keel.Message{keel.UserText("hi")})
	var api *keel.APICallError
	if !errors.As(err, &api) || api.StatusCode != 502 || first.Calls() != 1 || second.Calls() != 1 {
		t.Fatalf("Got(run) = %v; want the last model's 502 after one call each", err)
	}
}

func TestFallbackConfigErrors(t *testing.T) {
	m := always("m", keelReply{Text: "x"})
	for _, cfg := range []agent.Config{
		{ID: "a"},
		{ID: "a", Model: m, Models: []agent.ModelEntry{{Model: m}}},
		{ID: "a", Models: []agent.ModelEntry{{Model: m}, {}}},
	} {
		if _, err := agent.New(cfg); !errors.Is(err, agent.ErrInvalidConfig) {
			t.Errorf("Got(New(%+v)) = %v; want ErrInvalidConfig", cfg, err)
		}
	}
	a, err := agent.New(agent.Config{ID: "a", Models: []agent.ModelEntry{{Model: m}}})
	if err != nil || a.Config().Model != m {
		t.Errorf("Got(Config().Model) = %v, %v; want the first of Models", err, a.Config().Model)
	}
}

// TestRememberedRefusalsArePerModel checks that a file type the first
// model is remembered to refuse still reaches the next model.
func TestRememberedRefusalsArePerModel(t *testing.T) {
	store := memory.NewInMemory()
	now := time.Now()
	if err := store.RecordRefusal(context.Background(), memory.Refusal{Provider: "keeltest", Model: "first", MediaType: xlsxType,
		LearnedAt: now, ExpiresAt: now.Add(time.Hour), Status: 502, Reason: "internal"}); err != nil {
		t.Fatal(err)
	}
	rr, err := processor.NewRememberedRefusals(store, processor.RefusalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := always("first", keelReply{Err: unavailable503()})
	second := always("second", keelReply{Text: "read it"})
	a := newAgent(t, agent.Config{Models: []agent.ModelEntry{{Model: first, MaxRetries: -1}, {Model: second}}, Files: processor.UnsupportedFileOptions{Refusals: rr}})
	if _, err := a.Generate(context.Background(), []keel.Message{userMsg(keel.TextPart{Text: "sum it"}, xlsx("leads.xlsx"))}); err != nil {
		t.Fatal(err)
	}
	if n := countFiles(first.Prompts()[0]); n != 0 {
		t.Errorf("Got(files sent to the first model) = %d; want 0, its refusal remembered", n)
	}
	if n := countFiles(second.Prompts()[0]); n != 1 {
		t.Errorf("Got(files sent to the second model) = %d; want the sheet", n)
	}
}
