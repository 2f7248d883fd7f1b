package tool

import (
	"context"
	"encoding/json"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/workspace"
)

// Tool is something an agent's model can call.
type Tool struct {
	// Name is how the model calls it: letters, digits, '_' and '-'.
	Name string
	// Description tells the model what the tool does and when to use it.
	Description string
	// InputSchema is the JSON Schema of the input (an object schema). Nil
	// means an object with no properties.
	InputSchema json.RawMessage
	// Execute runs the tool. Its result is marshalled to JSON for the model
	// (a json.RawMessage is sent as is). An error is not fatal to the run:
	// the model sees it as a failed tool result.
	Execute func(ctx context.Context, call Call) (any, error)
}

// Call is one call of a tool.
type Call struct {
	// ID is the model's ID for the call.
	ID string
	// Input is the JSON the model gave.
	Input json.RawMessage
	// AgentID, ThreadID and ResourceID say whose run it is.
	AgentID, ThreadID, ResourceID string
	// Sandbox returns the run's sandbox (the same one uploads go to), or an
	// error wrapping workspace.ErrNoSandbox.
	Sandbox func(ctx context.Context) (workspace.Sandbox, error)
}

// Definition returns what the model is told about t.
func (t Tool) Definition() keel.ToolDefinition {
	schema := t.InputSchema
	if schema == nil {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return keel.ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: schema}
}
