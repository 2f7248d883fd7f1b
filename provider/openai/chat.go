package openai

import (
	"context"
	"encoding/json"
	"iter"
	"slices"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

func (m *Model) generateChat(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	res, err := generate(ctx, m, req, m.chatParams, m.chat.New)
	if err != nil {
		return nil, err
	}
	out := &keel.Response{ID: res.ID, ModelID: res.Model, Usage: chatUsage(res.Usage), FinishReason: keel.FinishOther}
	if len(res.Choices) == 0 {
		return out, nil
	}
	choice := res.Choices[0]
	msg := choice.Message
	if msg.Content != "" {
		out.Parts = append(out.Parts, keel.TextPart{Text: msg.Content})
	} else if msg.Refusal != "" {
		out.Parts = append(out.Parts, keel.TextPart{Text: msg.Refusal})
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		out.Parts = append(out.Parts, keel.ToolCallPart{
			ID: tc.ID, Name: tc.Function.Name, Input: toolInput(tc.Function.Arguments),
		})
	}
	out.FinishReason = chatFinish(choice.FinishReason, len(out.ToolCalls()) > 0)
	return out, nil
}

// streamedCall is a tool call whose pieces are still arriving.
type streamedCall struct {
	index    int64
	id, name string
	args     []byte
}

func (m *Model) streamChat(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	params := func(req *keel.Request, files *inline.Files) (sdk.ChatCompletionNewParams, error) {
		p, err := m.chatParams(req, files)
		p.StreamOptions.IncludeUsage = sdk.Bool(true)
		return p, err
	}
	return stream(ctx, m, req, params, m.chat.NewStreaming, m.readChat)
}

// readChat turns a Chat Completions stream into keel's events.
func (m *Model) readChat(ctx context.Context, c *call, stream *ssestream.Stream[sdk.ChatCompletionChunk], yield func(keel.StreamEvent, error) bool) {
	finish := keel.StreamEvent{Type: keel.EventFinish}
	reason := ""
	var calls []*streamedCall
	chunks := 0
	for stream.Next() {
		chunk := stream.Current()
		chunks++
		if chunk.ID != "" {
			finish.ResponseID = chunk.ID
		}
		if chunk.Model != "" {
			finish.ModelID = chunk.Model
		}
		if chunk.JSON.Usage.Valid() {
			finish.Usage = chatUsage(chunk.Usage)
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		choice := chunk.Choices[0]
		if choice.FinishReason != "" {
			reason = choice.FinishReason
		}
		for _, d := range choice.Delta.ToolCalls {
			i := slices.IndexFunc(calls, func(c *streamedCall) bool { return c.index == d.Index })
			// Some compatible servers send every call whole, all at
			// index 0: a new ID starts a new call.
			if i >= 0 && d.ID != "" && calls[i].id != "" && d.ID != calls[i].id {
				calls[i].index = -1 // never matched again
				i = -1
			}
			if i < 0 {
				calls = append(calls, &streamedCall{index: d.Index})
				i = len(calls) - 1
			}
			c := calls[i]
			if d.ID != "" {
				c.id = d.ID
			}
			if d.Function.Name != "" {
				c.name += d.Function.Name
			}
			c.args = append(c.args, d.Function.Arguments...)
		}
		text := choice.Delta.Content
		if text == "" {
			text = choice.Delta.Refusal
		}
		if text != "" && !yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: text}, nil) {
			return
		}
	}
	if err := m.ended(ctx, c, stream.Err()); err != nil {
		yield(keel.StreamEvent{}, err)
		return
	}
	if chunks == 0 {
		// An answer with no chunk at all is a cut connection or not a
		// stream; either way the same request may succeed.
		yield(keel.StreamEvent{}, m.cutShort(c, "stream ended before any chunk"))
		return
	}
	for _, c := range calls {
		ev := keel.StreamEvent{Type: keel.EventToolCall, ToolCall: keel.ToolCallPart{ID: c.id, Name: c.name, Input: toolInput(string(c.args))}}
		if !yield(ev, nil) {
			return
		}
	}
	finish.FinishReason = chatFinish(reason, len(calls) > 0)
	yield(finish, nil)
}

func chatUsage(u sdk.CompletionUsage) keel.Usage {
	return keel.Usage{
		InputTokens:  int(u.PromptTokens),
		OutputTokens: int(u.CompletionTokens),
		TotalTokens:  int(u.TotalTokens),
	}
}

// chatFinish maps a Chat Completions finish reason to keel's. Some
// compatible servers say "stop" after tool calls; the calls decide.
func chatFinish(reason string, hasToolCalls bool) keel.FinishReason {
	switch reason {
	case "length":
		return keel.FinishLength
	case "content_filter":
		return keel.FinishContentFilter
	case "tool_calls", "function_call":
		return keel.FinishToolCalls
	case "stop":
		if hasToolCalls {
			return keel.FinishToolCalls
		}
		return keel.FinishStop
	}
	if hasToolCalls {
		return keel.FinishToolCalls
	}
	return keel.FinishOther
}

// toolInput is a call's arguments as JSON; empty arguments are an empty
// object, and text that is not JSON is kept as a JSON string so the
// message stays valid.
func toolInput(args string) json.RawMessage {
	if args == "" {
		return json.RawMessage("{}")
	}
	if !json.Valid([]byte(args)) {
		b, _ := json.Marshal(args)
		return b
	}
	return json.RawMessage(args)
}
