package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/observe"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/tool"
)

// toolbox is the tools of one run: the agent's own, and what its tool
// sets held when the run began.
type toolbox struct {
	byName map[string]tool.Tool
	defs   []keel.ToolDefinition
}

// Tools returns the tools a run started now would have: Config.Tools,
// then those of Config.ToolSets as they are now, each name once.
func (a *Agent) Tools() []tool.Tool {
	if len(a.cfg.ToolSets) == 0 {
		return append([]tool.Tool(nil), a.cfg.Tools...)
	}
	box := a.toolbox()
	out := make([]tool.Tool, 0, len(box.defs))
	for _, d := range box.defs {
		out = append(out, box.byName[d.Name])
	}
	return out
}

// toolbox returns the tools of a run starting now. An agent without tool
// sets shares the one it built at New; sets are read anew, so that a run
// sees the tools an MCP server offers when it starts.
func (a *Agent) toolbox() toolbox {
	if len(a.cfg.ToolSets) == 0 {
		return toolbox{byName: a.tools, defs: a.defs}
	}
	box := toolbox{byName: maps.Clone(a.tools), defs: slices.Clone(a.defs)}
	for _, set := range a.cfg.ToolSets {
		for _, t := range set.Tools() {
			if !toolNameRE.MatchString(t.Name) || t.Execute == nil {
				a.logger.Warn("agent: a tool set holds a tool it cannot use; left out", "agent", a.cfg.ID, "tool", t.Name)
				continue
			}
			if _, dup := box.byName[t.Name]; dup {
				// Start-up checks names; a set that changed since may
				// bring one twice. The first keeps it, as at start.
				a.logger.Warn("agent: a tool set offers a tool name the agent has already; left out", "agent", a.cfg.ID, "tool", t.Name)
				continue
			}
			box.byName[t.Name] = t
			box.defs = append(box.defs, t.Definition())
		}
	}
	return box
}

// execTool runs one tool call. Whatever goes wrong (an unknown tool, an
// error, a panic, a result that is not JSON) becomes a failed tool result
// that the model sees; the run goes on. The files of a [tool.Result] come
// back beside the result part, for the tool message to hold after it.
//
// The call is an observe.ToolCall op.
func (a *Agent) execTool(ctx context.Context, run *processor.Run, tools toolbox, call keel.ToolCallPart) (tr keel.ToolResultPart, files []keel.FilePart) {
	if obs := observe.FromContext(ctx); obs != nil {
		op := observe.NewOp()
		*op = observe.Op{Kind: observe.ToolCall, Agent: a.cfg.ID, RunID: run.ID, Tool: call.Name, ToolCallID: call.ID}
		var span observe.Span
		ctx, span = obs.Start(ctx, op)
		defer func() {
			op.ToolFailed = tr.IsError
			span.End(nil)
			observe.ReleaseOp(op)
		}()
	}
	tr = keel.ToolResultPart{CallID: call.ID, Name: call.Name}
	fail := func(msg string) (keel.ToolResultPart, []keel.FilePart) {
		out, _ := json.Marshal(msg)
		tr.Output, tr.IsError = out, true
		return tr, nil
	}
	t, ok := tools.byName[call.Name]
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
	switch r := out.(type) {
	case tool.Result:
		out, files = r.Output, r.Files
	case *tool.Result:
		out = nil
		if r != nil {
			out, files = r.Output, r.Files
		}
	}
	if raw, ok := out.(json.RawMessage); ok && json.Valid(raw) {
		tr.Output = raw
		return tr, files
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fail(fmt.Sprintf("tool result is not JSON: %v", err))
	}
	tr.Output = b
	return tr, files
}
