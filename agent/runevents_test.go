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

// TestFinishEventNamesTheLastStep checks the Step of a stream's finish:
// the index of the run's last step, 1 after a tool call and the answer.
func TestFinishEventNamesTheLastStep(t *testing.T) {
	model := keeltest.NewModel(
		keelReply{ToolCalls: []keel.ToolCallPart{{ID: "c1", Name: "noop", Input: []byte(`{}`)}}},
		keelReply{Text: "done"},
	)
	noop := tool.Tool{Name: "noop", Execute: func(context.Context, tool.Call) (any, error) { return "ok", nil }}
	a, err := agent.New(agent.Config{ID: "a", Model: model, Tools: []tool.Tool{noop}})
	if err != nil {
		t.Fatal(err)
	}
	var finish *agent.Event
	for ev, err := range a.Stream(context.Background(), []keel.Message{keel.UserText("go")}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == agent.EventFinish {
			finish = &ev
		}
	}
	if finish == nil || finish.Step != 1 || len(finish.Result.Steps) != 2 {
		t.Fatalf("Got(finish) = %+v; want Step 1 of two steps", finish)
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
