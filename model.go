package keel

import (
	"context"
	"encoding/json"
	"iter"
)

// Model is a language model behind a provider's API. Implementations are
// safe for concurrent use.
//
// Generate and Stream turn every failure into an error that callers can
// classify with errors.As: an [*UnsupportedFunctionalityError] when the
// request holds something the provider cannot take (raised before anything
// is sent), an [*APICallError] when the provider answered with an error or
// could not be reached, or the context's error.
type Model interface {
	// Provider names the provider, such as "openai", "anthropic" or "google".
	Provider() string
	// Name is the provider's model name, such as "gemini-2.5-flash".
	Name() string
	// Generate sends req and returns the whole response.
	Generate(ctx context.Context, req *Request) (*Response, error)
	// Stream sends req and yields the response as it arrives. An error ends
	// the sequence: it is the last value yielded. Stopping early cancels the
	// request.
	Stream(ctx context.Context, req *Request) iter.Seq2[StreamEvent, error]
}

// Request is one call of a [Model].
type Request struct {
	// Messages is the prompt, in order. System messages may appear anywhere;
	// adapters send them as the provider's system instructions.
	Messages []Message
	// Tools are the tools the model may call.
	Tools []ToolDefinition
	// ToolChoice constrains tool use: "" or "auto" (the model decides),
	// "none", "required", or a tool's name.
	ToolChoice string
	// MaxOutputTokens caps the answer; 0 leaves the provider's default.
	MaxOutputTokens int
	// Temperature is sent when HasTemperature is set.
	Temperature    float64
	HasTemperature bool
	// Headers are extra HTTP headers for this call.
	Headers map[string]string
}

// ToolDefinition describes a tool to a model.
type ToolDefinition struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the tool's input (an object schema).
	InputSchema json.RawMessage
}

// FinishReason says why a model stopped.
type FinishReason string

// The finish reasons a model reports.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool-calls"
	FinishContentFilter FinishReason = "content-filter"
	FinishError         FinishReason = "error"
	FinishOther         FinishReason = "other"
)

// Usage counts tokens.
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	TotalTokens  int `json:"totalTokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:  u.InputTokens + v.InputTokens,
		OutputTokens: u.OutputTokens + v.OutputTokens,
		TotalTokens:  u.TotalTokens + v.TotalTokens,
	}
}

// Response is a model's whole answer to one [Request].
type Response struct {
	// ID is the provider's response ID, if it gave one.
	ID string
	// ModelID is the model that answered, as the provider names it.
	ModelID string
	// Parts holds the answer's text and tool calls, in order.
	Parts        []Part
	FinishReason FinishReason
	Usage        Usage
}

// Text joins the response's text parts.
func (r *Response) Text() string { return Message{Parts: r.Parts}.Text() }

// ToolCalls returns the tool calls of the response, in order.
func (r *Response) ToolCalls() []ToolCallPart {
	var calls []ToolCallPart
	for _, p := range r.Parts {
		if c, ok := p.(ToolCallPart); ok {
			calls = append(calls, c)
		}
	}
	return calls
}

// StreamEventType names the kind of a [StreamEvent].
type StreamEventType string

// The kinds of stream events.
const (
	// EventTextDelta carries the next piece of text in Text.
	EventTextDelta StreamEventType = "text-delta"
	// EventToolCall carries one complete tool call in ToolCall.
	EventToolCall StreamEventType = "tool-call"
	// EventFinish ends a successful stream with FinishReason, Usage,
	// ResponseID and ModelID.
	EventFinish StreamEventType = "finish"
)

// StreamEvent is one event of [Model.Stream].
type StreamEvent struct {
	Type         StreamEventType
	Text         string
	ToolCall     ToolCallPart
	FinishReason FinishReason
	Usage        Usage
	ResponseID   string
	ModelID      string
}
