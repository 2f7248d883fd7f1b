package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/tool"
)

// execTool runs one tool call. Whatever goes wrong (an unknown tool, an
// error, a panic, a result that is not JSON) becomes a failed tool result
// that the model sees; the run goes on.
func (a *Agent) execTool(ctx context.Context, run *processor.Run, call keel.ToolCallPart) (tr keel.ToolResultPart) {
	tr = keel.ToolResultPart{CallID: call.ID, Name: call.Name}
	fail := func(msg string) keel.ToolResultPart {
		out, _ := json.Marshal(msg)
		tr.Output, tr.IsError = out, true
		return tr
	}
	t, ok := a.tools[call.Name]
	if !ok {
		return fail(fmt.Sprintf("unknown tool %q", call.Name))
	}
	input := call.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	var (
		out any
		err error
	)
	func() {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("tool panicked: %v", v)
			}
		}()
		out, err = t.Execute(ctx, tool.Call{
			ID: call.ID, Input: input,
			AgentID: run.AgentID, ThreadID: run.ThreadID, ResourceID: run.ResourceID,
			Sandbox: run.Sandbox,
		})
	}()
	if err != nil {
		return fail(err.Error())
	}
	if raw, ok := out.(json.RawMessage); ok && json.Valid(raw) {
		tr.Output = raw
		return tr
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fail(fmt.Sprintf("tool result is not JSON: %v", err))
	}
	tr.Output = b
	return tr
}
