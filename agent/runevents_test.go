package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/tool"
)

// toolThenText streams a run whose model calls a tool, then answers, and
// returns the finish event.
func toolThenText(t *testing.T) agent.Event {
	t.Helper()
	model := keeltest.NewModel(
		keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "noop", Input: []byte(`{}`)}}},
		keelReply{Text: "done"},
	)
	noop := tool.Tool{Name: "noop", Execute: func(context.Context, tool.Call) (any, error) { return "ok", nil }}
	a, err := agent.New(agent.Config{ID: "a", Model: model, Tools: []tool.Tool{noop}})
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range a.Stream(context.Background(), []keel.Message{keel.UserText("go")}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == agent.EventFinish {
			return ev
		}
	}
	t.Fatal("Got(stream) = no finish; want one")
	return agent.Event{}
}

// TestFinishEventNamesTheLastStep checks the Step of a stream's finish:
// the index of the run's last step, 1 after a tool call and the answer.
func TestFinishEventNamesTheLastStep(t *testing.T) {
	if finish := toolThenText(t); finish.Step != 1 || len(finish.Result.Steps) != 2 {
		t.Fatalf("Got(finish) = %+v; want Step 1 of two steps", finish)
	}
}

// TestToolCallOnlyAnswerHasNoEmptyText checks that a streamed answer
// holding only a tool call is stored without an empty text part, which
// some providers refuse when it is sent back.
func TestToolCallOnlyAnswerHasNoEmptyText(t *testing.T) {
	res := toolThenText(t).Result
	if len(res.Messages) == 0 {
		t.Fatalf("Got(result) = %+v; want the reply's messages", res)
	}
	for _, p := range res.Messages[0].Parts {
		if tp, ok := p.(keel.TextPart); ok && tp.Text == "" {
			t.Fatalf("Got(tool-call message parts) = %+v; want no empty text part", res.Messages[0].Parts)
		}
	}
}

// TestRunIDGivenOrMade checks that a run keeps the ID it is given, and
// gets a "run_" one otherwise.
func TestRunIDGivenOrMade(t *testing.T) {
	model := keeltest.NewModel(keelReply{Text: "hi"})
	model.RepeatLast = true
	a, err := agent.New(agent.Config{ID: "a", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("go")}, agent.WithRunID("run-given"))
	if err != nil || res.RunID != "run-given" {
		t.Fatalf("Got(RunID with WithRunID) = %v, %v; want run-given", res, err)
	}
	res, err = a.Generate(context.Background(), []keel.Message{keel.UserText("go")})
	if err != nil || !strings.HasPrefix(res.RunID, "run_") || len(res.RunID) <= len("run_") {
		t.Fatalf("Got(RunID without one given) = %v, %v; want a made run_ ID", res, err)
	}
}
