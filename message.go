package keel

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"
)

// Role is the author of a [Message].
type Role string

// The roles a message can have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one message of a conversation: who said it and what it holds.
//
// A Message is a value: copying it copies the Parts slice header, not the
// parts. Code that changes the parts of a message it did not create must
// [Message.Clone] it first; processors that rewrite a prompt do, so stored
// messages are never changed by them.
type Message struct {
	// ID identifies the message in its thread. Empty until it is stored,
	// unless the caller sets one.
	ID string
	// Role says who wrote the message.
	Role Role
	// Parts is the content, in order.
	Parts []Part
	// CreatedAt is set when the message is stored, if it is zero.
	CreatedAt time.Time
	// Metadata is free-form data kept with the message (for example
	// MetadataSystemReminder). Treat it as read-only once the message is
	// shared; Clone does not copy it.
	Metadata map[string]any
}

// MetadataSystemReminder is the metadata key that marks a user message the
// runtime added itself, so that clients can hide it. Its value says what
// added the message, as an object with a "type": the prefill error
// handler's reminder has {"type": "anthropic-prefill-processor-retry"},
// the shape Mastra's client and its apps read. See
// [Message.IsSystemReminder].
const MetadataSystemReminder = "systemReminder"

// IsSystemReminder reports whether m is marked with
// [MetadataSystemReminder]: any value but nil and false, so that messages
// stored with the marker true still count.
func (m Message) IsSystemReminder() bool {
	v, ok := m.Metadata[MetadataSystemReminder]
	if !ok || v == nil {
		return false
	}
	b, isBool := v.(bool)
	return !isBool || b
}

// WithMetadata returns m with key set to v in a copy of its metadata,
// which m may share with other messages (a clone shares it).
func (m Message) WithMetadata(key string, v any) Message {
	md := make(map[string]any, len(m.Metadata)+1)
	maps.Copy(md, m.Metadata)
	md[key] = v
	m.Metadata = md
	return m
}

// Clone returns a copy of m whose Parts slice can be changed without
// changing m. File bytes are shared, not copied: parts are values and a
// [FilePart]'s Data is never written to.
func (m Message) Clone() Message {
	m.Parts = slices.Clone(m.Parts)
	return m
}

// CloneMessages clones every message of msgs with [Message.Clone] into a
// new slice.
func CloneMessages(msgs []Message) []Message {
	if msgs == nil {
		return nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = m.Clone()
	}
	return out
}

// Text joins the text parts of m with no separator.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(TextPart); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// HasFiles reports whether m holds at least one [FilePart].
func (m Message) HasFiles() bool {
	for _, p := range m.Parts {
		if _, ok := p.(FilePart); ok {
			return true
		}
	}
	return false
}

// UserText returns a user message holding one text part.
func UserText(text string) Message {
	return Message{Role: RoleUser, Parts: []Part{TextPart{Text: text}}}
}

// SystemText returns a system message holding one text part.
func SystemText(text string) Message {
	return Message{Role: RoleSystem, Parts: []Part{TextPart{Text: text}}}
}

// Part is one piece of a [Message]: a [TextPart], [FilePart],
// [ToolCallPart] or [ToolResultPart]. The set is closed.
type Part interface {
	// PartType names the kind of part: "text", "file", "tool-call" or
	// "tool-result".
	PartType() string
	isPart()
}

// TextPart is text.
type TextPart struct {
	Text string
}

// PartType returns "text".
func (TextPart) PartType() string { return "text" }
func (TextPart) isPart()          {}

// ToolCallPart is a model's request to call a tool.
type ToolCallPart struct {
	// ID pairs the call with its [ToolResultPart].
	ID string
	// Name is the tool's name.
	Name string
	// Input is the JSON the model gave as the tool's input.
	Input json.RawMessage
}

// PartType returns "tool-call".
func (ToolCallPart) PartType() string { return "tool-call" }
func (ToolCallPart) isPart()          {}

// ToolResultPart is the result of a tool call, sent back to the model in a
// [RoleTool] message.
type ToolResultPart struct {
	// CallID is the ID of the [ToolCallPart] this answers.
	CallID string
	// Name is the tool's name.
	Name string
	// Output is the result as a JSON value. When IsError is set it is a
	// JSON string describing the failure.
	Output json.RawMessage
	// IsError reports that the tool failed; the model sees the failure.
	IsError bool
}

// PartType returns "tool-result".
func (ToolResultPart) PartType() string { return "tool-result" }
func (ToolResultPart) isPart()          {}
