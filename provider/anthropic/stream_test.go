package anthropic_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

func TestStreamTwoToolCallsAndUsage(t *testing.T) {
	var b strings.Builder
	sse(&b, "message_start", `{"type":"message_start","message":{"id":"msg_s","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":20,"cache_read_input_tokens":100,"output_tokens":1}}}`)
	sse(&b, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	sse(&b, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"plan"}}`)
	sse(&b, "content_block_stop", `{"type":"content_block_stop","index":0}`)
	sse(&b, "content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_a","name":"find","input":{}}}`)
	sse(&b, "content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\":"}}`)
	sse(&b, "content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"a\"}"}}`)
	sse(&b, "content_block_stop", `{"type":"content_block_stop","index":1}`)
	sse(&b, "content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_b","name":"now","input":{}}}`)
	sse(&b, "content_block_stop", `{"type":"content_block_stop","index":2}`)
	sse(&b, "message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":4,"output_tokens":30}}`)
	sse(&b, "message_stop", `{"type":"message_stop"}`)
	s := providertest.NewServer(t, providertest.Reply{Body: b.String(), ContentType: "text/event-stream"})
	c := providertest.Collect(t, newModel(t, s.URL()).Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}))
	if c.Err != nil || c.Finish == nil {
		t.Fatalf("Got(stream) = %v, %v; want a finished stream", c.Err, c.Finish)
	}
	if c.Text != "" || len(c.ToolCalls) != 2 {
		t.Fatalf("Got(text, calls) = %q, %+v; want no text (thinking is left out) and 2 calls", c.Text, c.ToolCalls)
	}
	if a, b := c.ToolCalls[0], c.ToolCalls[1]; a.ID != "toolu_a" || string(a.Input) != `{"q":"a"}` || b.ID != "toolu_b" || string(b.Input) != `{}` {
		t.Errorf("Got(calls) = %+v; want toolu_a {\"q\":\"a\"} and toolu_b {}", c.ToolCalls)
	}
	want := keel.Usage{InputTokens: 124, OutputTokens: 30, TotalTokens: 154}
	if f := c.Finish; f.Usage != want || f.FinishReason != keel.FinishToolCalls || f.ResponseID != "msg_s" || f.ModelID != "claude-x" {
		t.Errorf("Got(finish) = %+v; want usage %+v, tool-calls, msg_s, claude-x", f, want)
	}
	if got := decodeRequest(t, s.Requests()[0].Body); !got.Stream {
		t.Errorf("Got(stream field) = false; want true")
	}
}

// TestStreamAnsweredWhole checks a server that ignores "stream": true and
// answers one JSON message.
func TestStreamAnsweredWhole(t *testing.T) {
	s := providertest.NewServer(t, providertest.Reply{Body: toolCallBody("toolu_w", "find", `{"q":"w"}`)})
	c := providertest.Collect(t, newModel(t, s.URL()).Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}))
	if c.Err != nil || c.Finish == nil {
		t.Fatalf("Got(stream) = %v, %v; want a finished stream", c.Err, c.Finish)
	}
	if c.Text != "Let me check." || len(c.ToolCalls) != 1 || c.ToolCalls[0].ID != "toolu_w" || c.Finish.FinishReason != keel.FinishToolCalls {
		t.Errorf("Got(text, calls, finish) = %q, %+v, %q; want the message replayed", c.Text, c.ToolCalls, c.Finish.FinishReason)
	}
}
