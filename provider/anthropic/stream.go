package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/keel-go/keel"
)

// streamState gathers what a stream's events say about the whole answer.
type streamState struct {
	id, model                            string
	input, cacheWrite, cacheRead, output int64
	stop                                 anthropic.StopReason
	// tools holds the tool calls being streamed, by content block index;
	// a call is yielded whole when its block stops.
	tools map[int64]*toolCallBuffer
}

type toolCallBuffer struct {
	id, name string
	input    strings.Builder
}

// readStream turns the SDK's events into keel's until message_stop, an
// error, or the consumer stops.
func readStream(ctx context.Context, endpoint string, c *call, stream *ssestream.Stream[anthropic.MessageStreamEventUnion], whole *wholeAnswer, yield func(keel.StreamEvent, error) bool) {
	st := streamState{}
	seen := false
	for stream.Next() {
		seen = true
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			st.id, st.model = ev.Message.ID, string(ev.Message.Model)
			u := ev.Message.Usage
			st.input, st.cacheWrite, st.cacheRead, st.output = u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.OutputTokens
		case "content_block_start":
			switch ev.ContentBlock.Type {
			case "text":
				if ev.ContentBlock.Text != "" && !yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: ev.ContentBlock.Text}, nil) {
					return
				}
			case "tool_use":
				if st.tools == nil {
					st.tools = make(map[int64]*toolCallBuffer)
				}
				st.tools[ev.Index] = &toolCallBuffer{id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text != "" && !yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: ev.Delta.Text}, nil) {
					return
				}
			case "input_json_delta":
				if tc := st.tools[ev.Index]; tc != nil {
					tc.input.WriteString(ev.Delta.PartialJSON)
				}
			}
		case "content_block_stop":
			tc := st.tools[ev.Index]
			if tc == nil {
				continue
			}
			delete(st.tools, ev.Index)
			call := keel.ToolCallPart{ID: tc.id, Name: tc.name, Input: toolInput([]byte(tc.input.String()))}
			if !yield(keel.StreamEvent{Type: keel.EventToolCall, ToolCall: call}, nil) {
				return
			}
		case "message_delta":
			st.stop = ev.Delta.StopReason
			// message_delta's counts are cumulative; input counts appear
			// there only when they changed since message_start.
			u := ev.Usage
			st.output = u.OutputTokens
			if u.InputTokens > 0 {
				st.input = u.InputTokens
			}
			if u.CacheCreationInputTokens > 0 {
				st.cacheWrite = u.CacheCreationInputTokens
			}
			if u.CacheReadInputTokens > 0 {
				st.cacheRead = u.CacheReadInputTokens
			}
		case "message_stop":
			yield(keel.StreamEvent{
				Type:         keel.EventFinish,
				FinishReason: finishReason(st.stop),
				Usage:        usage(st.input, st.cacheWrite, st.cacheRead, st.output),
				ResponseID:   st.id,
				ModelID:      st.model,
			}, nil)
			return
		}
	}
	err := stream.Err()
	if err == nil && !seen && whole.body != nil {
		err = whole.replay(yield)
		if err == nil {
			return
		}
	}
	if err == nil {
		err = errStreamTruncated
	}
	yield(keel.StreamEvent{}, callError(ctx, "stream", endpoint, c, err))
}

// wholeAnswer holds the body of a streaming request that the server
// answered with one JSON message instead of events, as some proxies in
// front of the API do when they ignore "stream": true.
type wholeAnswer struct {
	body []byte
}

// capture is an SDK middleware that takes a successful JSON answer out of
// the event decoder's way.
func (w *wholeAnswer) capture(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp.StatusCode >= 300 {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" {
		return resp, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	w.body = body
	resp.Body = http.NoBody
	return resp, nil
}

// replay yields the captured message as a stream would have.
func (w *wholeAnswer) replay(yield func(keel.StreamEvent, error) bool) error {
	var msg anthropic.Message
	if err := json.Unmarshal(w.body, &msg); err != nil {
		return fmt.Errorf("decode whole answer: %w", err)
	}
	resp := response(&msg)
	for _, p := range resp.Parts {
		ev := keel.StreamEvent{Type: keel.EventTextDelta}
		switch p := p.(type) {
		case keel.TextPart:
			if p.Text == "" {
				continue
			}
			ev.Text = p.Text
		case keel.ToolCallPart:
			ev = keel.StreamEvent{Type: keel.EventToolCall, ToolCall: p}
		}
		if !yield(ev, nil) {
			return nil
		}
	}
	yield(keel.StreamEvent{Type: keel.EventFinish, FinishReason: resp.FinishReason, Usage: resp.Usage, ResponseID: resp.ID, ModelID: resp.ModelID}, nil)
	return nil
}
