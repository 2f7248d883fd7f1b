package anthropic

import (
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/keel-go/keel"
)

// response converts a whole Messages API answer. Blocks keel has no part
// for (thinking, server tools) are left out.
func response(msg *anthropic.Message) *keel.Response {
	resp := &keel.Response{
		ID:           msg.ID,
		ModelID:      string(msg.Model),
		FinishReason: finishReason(msg.StopReason),
		Usage: usage(msg.Usage.InputTokens, msg.Usage.CacheCreationInputTokens,
			msg.Usage.CacheReadInputTokens, msg.Usage.OutputTokens),
	}
	for _, block := range msg.Content {
		switch block.Type {
		case "text":
			resp.Parts = append(resp.Parts, keel.TextPart{Text: block.Text})
		case "tool_use":
			resp.Parts = append(resp.Parts, keel.ToolCallPart{ID: block.ID, Name: block.Name, Input: toolInput(block.Input)})
		}
	}
	return resp
}

// toolInput copies a tool call's input out of the SDK's buffer; a call
// without input gets an empty object, which every tool can decode.
func toolInput(raw []byte) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return append(json.RawMessage(nil), raw...)
}

// usage counts every prompt token as input: Anthropic reports the tokens
// written to and read from its prompt cache apart from input_tokens.
func usage(input, cacheWrite, cacheRead, output int64) keel.Usage {
	in := int(input + cacheWrite + cacheRead)
	return keel.Usage{InputTokens: in, OutputTokens: int(output), TotalTokens: in + int(output)}
}

// finishReason maps Anthropic's stop reasons onto keel's.
func finishReason(r anthropic.StopReason) keel.FinishReason {
	switch r {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		return keel.FinishStop
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		return keel.FinishLength
	case anthropic.StopReasonToolUse:
		return keel.FinishToolCalls
	case anthropic.StopReasonRefusal:
		return keel.FinishContentFilter
	default:
		return keel.FinishOther
	}
}
