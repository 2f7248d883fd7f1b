package google

import (
	"encoding/json"

	"github.com/keel-go/keel"
	"google.golang.org/genai"
)

// answer accumulates a Gemini answer, whole or chunk by chunk: the
// non-streaming call feeds it one response, a stream each chunk.
type answer struct {
	m           *Model
	id, modelID string
	parts       []keel.Part
	calls       int
	finish      genai.FinishReason
	finishMsg   string
	blocked     bool
	usage       keel.Usage
}

// add reads one response (or stream chunk) and returns the new text and
// tool calls it holds, in order.
func (a *answer) add(resp *genai.GenerateContentResponse) []keel.Part {
	if resp == nil {
		return nil
	}
	if resp.ResponseID != "" {
		a.id = resp.ResponseID
	}
	if resp.ModelVersion != "" {
		a.modelID = resp.ModelVersion
	}
	if u := resp.UsageMetadata; u != nil {
		// Each chunk carries the running total, not an increment.
		a.usage = usage(u)
	}
	if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
		a.blocked = true
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return nil
	}
	cand := resp.Candidates[0]
	if cand.FinishReason != "" {
		a.finish, a.finishMsg = cand.FinishReason, cand.FinishMessage
	}
	if cand.Content == nil {
		return nil
	}
	var out []keel.Part
	for _, p := range cand.Content.Parts {
		switch {
		case p == nil, p.Thought:
			// Thought summaries are the model's reasoning, not its answer.
		case p.FunctionCall != nil:
			call := a.toolCall(p)
			out = append(out, call)
		case p.Text != "":
			out = append(out, keel.TextPart{Text: p.Text})
		}
	}
	a.parts = append(a.parts, out...)
	return out
}

func (a *answer) toolCall(p *genai.Part) keel.ToolCallPart {
	fc := p.FunctionCall
	id := fc.ID
	if id == "" {
		id = newCallID(a.id, a.calls)
	}
	a.calls++
	if len(p.ThoughtSignature) > 0 {
		a.m.sigs.remember(id, p.ThoughtSignature)
	}
	input := json.RawMessage("{}")
	if len(fc.Args) > 0 {
		if b, err := json.Marshal(fc.Args); err == nil {
			input = b
		}
	}
	return keel.ToolCallPart{ID: id, Name: fc.Name, Input: input}
}

// finishReason maps Gemini's finish reason to keel's. Gemini says STOP
// when it calls tools, so tool calls decide.
func (a *answer) finishReason() keel.FinishReason {
	if a.blocked && a.finish == "" {
		return keel.FinishContentFilter
	}
	switch a.finish {
	case genai.FinishReasonStop, "":
		if a.calls > 0 {
			return keel.FinishToolCalls
		}
		if a.finish == "" {
			return keel.FinishOther
		}
		return keel.FinishStop
	case genai.FinishReasonMaxTokens:
		return keel.FinishLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return keel.FinishContentFilter
	case genai.FinishReasonMalformedFunctionCall, genai.FinishReasonUnexpectedToolCall:
		return keel.FinishError
	}
	return keel.FinishOther
}

// malformed reports an answer that ended on a malformed function call and
// gave nothing to act on.
func (a *answer) malformed() bool {
	return a.finish == genai.FinishReasonMalformedFunctionCall && a.calls == 0
}

func (a *answer) response() *keel.Response {
	return &keel.Response{
		ID:           a.id,
		ModelID:      a.model(),
		Parts:        mergeText(a.parts),
		FinishReason: a.finishReason(),
		Usage:        a.usage,
	}
}

// usage counts the model's thoughts as output: they are billed as such.
func usage(u *genai.GenerateContentResponseUsageMetadata) keel.Usage {
	out := keel.Usage{
		InputTokens:  int(u.PromptTokenCount),
		OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount),
		TotalTokens:  int(u.TotalTokenCount),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}

// mergeText joins adjacent text parts, which Gemini splits arbitrarily.
func mergeText(parts []keel.Part) []keel.Part {
	var out []keel.Part
	for _, p := range parts {
		if t, ok := p.(keel.TextPart); ok && len(out) > 0 {
			if prev, ok := out[len(out)-1].(keel.TextPart); ok {
				out[len(out)-1] = keel.TextPart{Text: prev.Text + t.Text}
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// model is the model that answered: the version Gemini reports, else the
// name the request went to.
func (a *answer) model() string {
	if a.modelID != "" {
		return a.modelID
	}
	return a.m.name
}
