package agent_test

import (
	"context"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/tool"
)

// TestInstructionsAreTheSystemMessageOfEveryCall checks that the agent's
// instructions open the prompt of every call as its only system message:
// the first call, a retry, and a later tool step.
func TestInstructionsAreTheSystemMessageOfEveryCall(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		transient := &keel.APICallError{Provider: "openai", StatusCode: 503, Retryable: true}
		model := keeltest.NewModel(
			keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "noop", Input: []byte(`{}`)}}},
			keelReply{Err: transient},
			keelReply{Text: "done"},
		)
		noop := tool.Tool{Name: "noop", Execute: func(context.Context, tool.Call) (any, error) { return "ok", nil }}
		a := newAgent(t, agent.Config{Model: model, Instructions: "Be brief.", Tools: []tool.Tool{noop},
			ErrorProcessors: []processor.Processor{fastRetry()}})
		if _, _, err := m.run(context.Background(), a, []keel.Message{keel.UserText("hi")}); err != nil {
			t.Fatal(err)
		}
		prompts := model.Prompts()
		if len(prompts) != 3 {
			t.Fatalf("Got(calls) = %d; want 3: a tool step, a retry and the answer", len(prompts))
		}
		for i, p := range prompts {
			if len(p) == 0 || p[0].Role != keel.RoleSystem || p[0].Text() != "Be brief." {
				t.Errorf("Got(call %d first message) = %+v; want the system message %q", i+1, p[0], "Be brief.")
			}
			systems := 0
			for _, msg := range p {
				if msg.Role == keel.RoleSystem {
					systems++
				}
			}
			if systems != 1 {
				t.Errorf("Got(call %d system messages) = %d; want 1", i+1, systems)
			}
		}

		// Without instructions, no system message is made up.
		plain := keeltest.NewModel(keelReply{Text: "hi"})
		b := newAgent(t, agent.Config{Model: plain})
		if _, _, err := m.run(context.Background(), b, []keel.Message{keel.UserText("hi")}); err != nil {
			t.Fatal(err)
		}
		if p := plain.Prompts()[0]; len(p) != 1 || p[0].Role != keel.RoleUser {
			t.Errorf("Got(prompt without instructions) = %+v; want the user's message alone", p)
		}
	})
}
