package keeltest

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/keel-go/keel"
)

// Reply is one scripted answer of a [Model].
type Reply struct {
	// Text is the answer's text. A stream sends it in Chunks when set, else
	// word by word.
	Text   string
	Chunks []string
	// ToolCalls are tool calls the model makes (finish reason tool-calls).
	ToolCalls []keel.ToolCallPart
	// Err fails the call. In a stream, the text (if any) is sent first and
	// the error after it, so tests can exercise failures after output.
	Err error
	// Usage is reported with the answer; zero gives 10 input and 5 output
	// tokens.
	Usage keel.Usage
	// FinishReason overrides the finish reason.
	FinishReason keel.FinishReason
	// Respond, when set, computes the answer from the request instead.
	Respond func(req *keel.Request) Reply
}

// Model is a scripted [keel.Model] for tests: each call takes the next
// [Reply] of its script and records the prompt it was given. It is safe for
// concurrent use.
type Model struct {
	// RepeatLast makes the last reply answer every call past the script's
	// end; otherwise such a call fails.
	RepeatLast bool
	// NoRecord turns off recording, for benchmarks.
	NoRecord bool

	mu       sync.Mutex
	replies  []Reply
	next     int
	requests []keel.Request
}

// NewModel returns a model that answers with replies, in order.
func NewModel(replies ...Reply) *Model {
	return &Model{replies: replies}
}

// Provider returns "keeltest".
func (m *Model) Provider() string { return "keeltest" }

// Name returns "scripted".
func (m *Model) Name() string { return "scripted" }

// Calls is the number of calls the model received.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next
}

// Requests returns a copy of every request received, in order. Their
// prompts are clones: later changes by the caller do not show.
func (m *Model) Requests() []keel.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]keel.Request(nil), m.requests...)
}

// Prompts returns the prompt of every call, in order.
func (m *Model) Prompts() [][]keel.Message {
	reqs := m.Requests()
	out := make([][]keel.Message, len(reqs))
	for i, r := range reqs {
		out[i] = r.Messages
	}
	return out
}

func (m *Model) take(req *keel.Request) (Reply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.next
	m.next++
	if !m.NoRecord {
		r := *req
		r.Messages = keel.CloneMessages(req.Messages)
		m.requests = append(m.requests, r)
	}
	var rep Reply
	switch {
	case n < len(m.replies):
		rep = m.replies[n]
	case m.RepeatLast && len(m.replies) > 0:
		rep = m.replies[len(m.replies)-1]
	default:
		return Reply{}, fmt.Errorf("keeltest: script exhausted: call %d, %d replies", n+1, len(m.replies))
	}
	if rep.Respond != nil {
		rep = rep.Respond(req)
	}
	return rep, nil
}

// Generate answers with the next reply.
func (m *Model) Generate(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep, err := m.take(req)
	if err != nil {
		return nil, err
	}
	if rep.Err != nil {
		return nil, rep.Err
	}
	resp := &keel.Response{ID: "resp", ModelID: "scripted", FinishReason: rep.finish(), Usage: rep.usage()}
	if rep.Text != "" {
		resp.Parts = append(resp.Parts, keel.TextPart{Text: rep.Text})
	}
	for _, c := range rep.ToolCalls {
		resp.Parts = append(resp.Parts, c)
	}
	return resp, nil
}

// Stream answers with the next reply as a stream of events.
func (m *Model) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		rep, err := m.take(req)
		if err != nil {
			yield(keel.StreamEvent{}, err)
			return
		}
		for _, c := range rep.chunks() {
			if !yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: c}, nil) {
				return
			}
		}
		if rep.Err != nil {
			yield(keel.StreamEvent{}, rep.Err)
			return
		}
		for _, c := range rep.ToolCalls {
			if !yield(keel.StreamEvent{Type: keel.EventToolCall, ToolCall: c}, nil) {
				return
			}
		}
		yield(keel.StreamEvent{Type: keel.EventFinish, FinishReason: rep.finish(), Usage: rep.usage(), ResponseID: "resp", ModelID: "scripted"}, nil)
	}
}

func (r Reply) chunks() []string {
	if r.Chunks != nil {
		return r.Chunks
	}
	if r.Text == "" {
		return nil
	}
	return strings.SplitAfter(r.Text, " ")
}

func (r Reply) finish() keel.FinishReason {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0:
		return keel.FinishToolCalls
	default:
		return keel.FinishStop
	}
}

func (r Reply) usage() keel.Usage {
	return cmp.Or(r.Usage, keel.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15})
}
