package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/keel-go/keel"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// The Responses API's answers are read from their raw JSON into these few
// fields: the SDK's own types are unions of every tool the API has.
type rawResponse struct {
	ID     string `json:"id"`
	Model  string `json:"model"`
	Status string `json:"status"`
	Output []struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Content   []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		} `json:"content"`
	} `json:"output"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

func (r *rawResponse) usage() keel.Usage {
	if r.Usage == nil {
		return keel.Usage{}
	}
	return keel.Usage{InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens, TotalTokens: r.Usage.TotalTokens}
}

func (r *rawResponse) finish(hasToolCalls bool) keel.FinishReason {
	switch {
	case r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "max_output_tokens":
		return keel.FinishLength
	case r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "content_filter":
		return keel.FinishContentFilter
	case r.Status == "failed":
		return keel.FinishError
	case hasToolCalls:
		return keel.FinishToolCalls
	case r.Status == "completed" || r.Status == "":
		return keel.FinishStop
	}
	return keel.FinishOther
}

func (m *Model) generateResponses(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	res, err := generate(ctx, m, req, m.responsesParams, m.responses.New)
	if err != nil {
		return nil, err
	}
	var raw rawResponse
	if err := json.Unmarshal([]byte(res.RawJSON()), &raw); err != nil {
		return nil, fmt.Errorf("openai: decode response: %w", err)
	}
	out := &keel.Response{ID: raw.ID, ModelID: raw.Model, Usage: raw.usage()}
	for _, item := range raw.Output {
		switch item.Type {
		case "message":
			for _, c := range item.Content {
				if c.Text != "" {
					out.Parts = append(out.Parts, keel.TextPart{Text: c.Text})
				} else if c.Refusal != "" {
					out.Parts = append(out.Parts, keel.TextPart{Text: c.Refusal})
				}
			}
		case "function_call":
			out.Parts = append(out.Parts, keel.ToolCallPart{ID: item.CallID, Name: item.Name, Input: toolInput(item.Arguments)})
		}
	}
	out.FinishReason = raw.finish(len(out.ToolCalls()) > 0)
	return out, nil
}

// responsesEvent is one server-sent event of a Responses API stream.
type responsesEvent struct {
	Type     string          `json:"type"`
	Delta    string          `json:"delta"`
	ItemID   string          `json:"item_id"`
	Response json.RawMessage `json:"response"`
	Item     *struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"item"`
}

func (m *Model) streamResponses(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return stream(ctx, m, req, m.responsesParams, m.responses.NewStreaming, m.readResponses)
}

// readResponses turns a Responses API stream into keel's events.
func (m *Model) readResponses(ctx context.Context, c *call, stream *ssestream.Stream[responses.ResponseStreamEventUnion], yield func(keel.StreamEvent, error) bool) {
	args := map[string][]byte{} // by item ID, for servers that send no arguments when the item is done
	calls := 0
	var final *rawResponse
	for stream.Next() {
		var ev responsesEvent
		data := stream.Current().RawJSON()
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			yield(keel.StreamEvent{}, fmt.Errorf("openai: decode stream event: %w", err))
			return
		}
		switch ev.Type {
		case "response.output_text.delta", "response.refusal.delta":
			if ev.Delta != "" && !yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: ev.Delta}, nil) {
				return
			}
		case "response.function_call_arguments.delta":
			args[ev.ItemID] = append(args[ev.ItemID], ev.Delta...)
		case "response.output_item.done":
			if ev.Item == nil || ev.Item.Type != "function_call" {
				continue
			}
			a := ev.Item.Arguments
			if a == "" {
				a = string(args[ev.Item.ID])
			}
			calls++
			call := keel.ToolCallPart{ID: ev.Item.CallID, Name: ev.Item.Name, Input: toolInput(a)}
			if !yield(keel.StreamEvent{Type: keel.EventToolCall, ToolCall: call}, nil) {
				return
			}
		case "response.completed", "response.incomplete", "response.failed":
			final = &rawResponse{}
			if err := json.Unmarshal(ev.Response, final); err != nil {
				yield(keel.StreamEvent{}, fmt.Errorf("openai: decode stream event: %w", err))
				return
			}
			if ev.Type == "response.failed" {
				body, _ := json.Marshal(map[string]any{"error": final.Error})
				yield(keel.StreamEvent{}, m.streamError(c.x.Record().URL, string(body)))
				return
			}
		case "error":
			yield(keel.StreamEvent{}, m.streamError(c.x.Record().URL, data))
			return
		}
	}
	if err := m.ended(ctx, c, stream.Err()); err != nil {
		yield(keel.StreamEvent{}, err)
		return
	}
	if final == nil {
		// The API ends every stream with a terminal event; without one
		// the connection was cut, and the same request may succeed.
		yield(keel.StreamEvent{}, m.cutShort(c, "stream ended before the response completed"))
		return
	}
	yield(keel.StreamEvent{
		Type: keel.EventFinish, FinishReason: final.finish(calls > 0), Usage: final.usage(),
		ResponseID: final.ID, ModelID: final.Model,
	}, nil)
}
