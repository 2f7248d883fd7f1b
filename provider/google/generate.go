package google

import (
	"context"
	"iter"

	"github.com/keel-go/keel"
)

// Generate sends req to generateContent and returns the whole answer. See
// [keel.Model] for the errors it returns.
func (m *Model) Generate(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	r, err := m.buildRequest(req)
	if err != nil {
		return nil, err
	}
	c := m.newCall(r)
	resp, err := m.client.Models.GenerateContent(withCall(ctx, c), m.name, r.contents, r.config)
	if err != nil {
		return nil, callError(ctx, "generate", c, err)
	}
	a := &answer{m: m}
	a.add(resp)
	if a.malformed() {
		return nil, malformedCallError(c, a.finishMsg)
	}
	return a.response(), nil
}

// Stream sends req to streamGenerateContent (server-sent events) and
// yields text deltas, each tool call once complete (Gemini sends a call
// whole), and a finish event with the usage. An error is the last value
// yielded; stopping early cancels the request.
func (m *Model) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		r, err := m.buildRequest(req)
		if err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		c := m.newCall(r)
		a := &answer{m: m}
		for chunk, err := range m.client.Models.GenerateContentStream(withCall(ctx, c), m.name, r.contents, r.config) {
			if err != nil {
				yield(keel.StreamEvent{}, callError(ctx, "stream", c, err))
				return
			}
			for _, p := range a.add(chunk) {
				var ev keel.StreamEvent
				switch p := p.(type) {
				case keel.TextPart:
					ev = keel.StreamEvent{Type: keel.EventTextDelta, Text: p.Text}
				case keel.ToolCallPart:
					ev = keel.StreamEvent{Type: keel.EventToolCall, ToolCall: p}
				}
				if !yield(ev, nil) {
					return
				}
			}
		}
		if err := ctx.Err(); err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		if a.malformed() {
			yield(keel.StreamEvent{}, malformedCallError(c, a.finishMsg))
			return
		}
		yield(keel.StreamEvent{
			Type:         keel.EventFinish,
			FinishReason: a.finishReason(),
			Usage:        a.usage,
			ResponseID:   a.id,
			ModelID:      a.model(),
		}, nil)
	}
}
