package tool

import "github.com/keel-go/keel"

// Result is what an Execute returns when its result carries files, such
// as the images an MCP tool answers with. Output is the result the model
// reads, marshalled to JSON like any other result (a json.RawMessage is
// sent as is). Files follow the call's [keel.ToolResultPart] in the tool
// message, in order, as [keel.FilePart]s: the stores keep them as they
// keep a user's files, and a model that refuses one gets it through the
// unsupported-file handler like any other file. Execute may return a
// Result or a *Result; a nil *Result is an empty output.
type Result struct {
	Output any
	Files  []keel.FilePart
}

// Set is a set of tools that may change while a program runs, such as
// the tools of an MCP server, which may offer others at any time. An agent
// reads the set's tools once at the start of each run, so that a run sees
// one set from its first step to its last. Implementations must be safe
// for concurrent use.
type Set interface {
	// Tools returns the tools of the set now. The caller must not change
	// the slice.
	Tools() []Tool
}

// Tools is a [Set] that never changes.
type Tools []Tool

// Tools returns ts.
func (ts Tools) Tools() []Tool { return ts }
