package server

import (
	"encoding/json"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// jsonTime is a time as Mastra writes it: ISO-8601 in UTC, milliseconds.
type jsonTime time.Time

func (t jsonTime) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 26)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z")
	return append(b, '"'), nil
}

// wireThread is a thread as the client reads it.
type wireThread struct {
	ID         string         `json:"id"`
	Title      string         `json:"title"`
	ResourceID string         `json:"resourceId"`
	CreatedAt  jsonTime       `json:"createdAt"`
	UpdatedAt  jsonTime       `json:"updatedAt"`
	Metadata   map[string]any `json:"metadata"`
	// MessageCount is keel's: the thread's stored messages, as the store
	// counts them (system reminders included).
	MessageCount int `json:"messageCount"`
}

func toWireThread(t memory.Thread) wireThread {
	meta := t.Metadata
	if meta == nil {
		meta = map[string]any{}
	}
	return wireThread{ID: t.ID, Title: t.Title, ResourceID: t.ResourceID,
		CreatedAt: jsonTime(t.CreatedAt), UpdatedAt: jsonTime(t.UpdatedAt), Metadata: meta, MessageCount: t.MessageCount}
}

// wireStoredMessage is a stored message in Mastra's format 2.
type wireStoredMessage struct {
	ID         string      `json:"id"`
	Role       keel.Role   `json:"role"`
	CreatedAt  jsonTime    `json:"createdAt"`
	ThreadID   string      `json:"threadId,omitempty"`
	ResourceID string      `json:"resourceId,omitempty"`
	Type       string      `json:"type"`
	Content    wireContent `json:"content"`
}

type wireContent struct {
	Format   int            `json:"format"`
	Parts    []any          `json:"parts"`
	Content  string         `json:"content"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type wireTextPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// wireFilePart is a stored file. Data is the data: URL the user sent (or
// one made from the bytes), or the http(s) URL; "" when the caller asked
// for the files without their bytes (see fileDataParam). Size and SHA256,
// keel's own, describe inline bytes, so that a client can show them
// without decoding the data.
type wireFilePart struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	Filename string `json:"filename,omitempty"`
	Size     *int64 `json:"size,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
}

type wireToolInvocationPart struct {
	Type           string             `json:"type"`
	ToolInvocation wireToolInvocation `json:"toolInvocation"`
}

type wireToolInvocation struct {
	State      string          `json:"state"`
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Args       json.RawMessage `json:"args,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
}

// toWireMessages renders stored messages. A tool call whose result is in
// msgs is shown in state "result" with it, as Mastra stores it; a tool
// message becomes an assistant message of "result" invocations, since the
// client knows no tool role.
func toWireMessages(msgs []keel.Message, threadID, resourceID string) []wireStoredMessage {
	return toWireMessagesData(msgs, threadID, resourceID, true)
}

// toWireMessagesData is toWireMessages, with the files' bytes left out
// when withData is false.
func toWireMessagesData(msgs []keel.Message, threadID, resourceID string, withData bool) []wireStoredMessage {
	results := make(map[string]keel.ToolResultPart)
	for _, m := range msgs {
		for _, p := range m.Parts {
			if tr, ok := p.(keel.ToolResultPart); ok {
				results[tr.CallID] = tr
			}
		}
	}
	out := make([]wireStoredMessage, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, toWireMessage(m, threadID, resourceID, results, withData))
	}
	return out
}

func toWireMessage(m keel.Message, threadID, resourceID string, results map[string]keel.ToolResultPart, withData bool) wireStoredMessage {
	role := m.Role
	if role == keel.RoleTool {
		role = keel.RoleAssistant
	}
	wm := wireStoredMessage{ID: m.ID, Role: role, CreatedAt: jsonTime(m.CreatedAt), ThreadID: threadID,
		ResourceID: resourceID, Type: "text",
		Content: wireContent{Format: 2, Parts: make([]any, 0, len(m.Parts)), Content: m.Text(), Metadata: withWireRecoveries(m)}}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case keel.TextPart:
			wm.Content.Parts = append(wm.Content.Parts, wireTextPart{Type: "text", Text: p.Text})
		case keel.FilePart:
			wm.Content.Parts = append(wm.Content.Parts, toWireFile(p, withData))
		case keel.ToolCallPart:
			inv := wireToolInvocation{State: "call", ToolCallID: p.ID, ToolName: p.Name, Args: rawOrEmpty(p.Input)}
			if tr, ok := results[p.ID]; ok {
				inv.State, inv.Result, inv.IsError = "result", tr.Output, tr.IsError
			}
			wm.Content.Parts = append(wm.Content.Parts, wireToolInvocationPart{Type: "tool-invocation", ToolInvocation: inv})
		case keel.ToolResultPart:
			wm.Content.Parts = append(wm.Content.Parts, wireToolInvocationPart{Type: "tool-invocation", ToolInvocation: wireToolInvocation{
				State: "result", ToolCallID: p.CallID, ToolName: p.Name, Result: rawOrNull(p.Output), IsError: p.IsError,
			}})
		}
	}
	return wm
}

func toWireFile(p keel.FilePart, withData bool) wireFilePart {
	wf := wireFilePart{Type: "file", MimeType: p.MediaType, Filename: p.Filename}
	describeInline(&wf, p)
	switch {
	case !withData && p.IsInline():
	case p.Data != nil || p.URL == "":
		wf.Data = keel.DataURL(p.MediaType, p.Data)
	default:
		wf.Data = p.URL
	}
	return wf
}

// rawOrEmpty returns b when it is JSON, else an empty object, so that a
// model's broken tool input never breaks the response.
func rawOrEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("{}")
	}
	return b
}

func rawOrNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return b
}
