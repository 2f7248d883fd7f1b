package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/keel-go/keel/provider/providertest"
)

var responsesUsage = map[string]any{
	"input_tokens": providertest.InputTokens, "input_tokens_details": map[string]int{"cached_tokens": 0},
	"output_tokens": providertest.OutputTokens, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
	"total_tokens": providertest.InputTokens + providertest.OutputTokens,
}

func responseObject(status string, output []any, usage any) map[string]any {
	return map[string]any{
		"id": providertest.ResponseID, "object": "response", "created_at": 1764460800, "status": status,
		"error": nil, "incomplete_details": nil, "model": providertest.ModelID, "output": output,
		"parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}, "usage": usage,
	}
}

func messageItem(text string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_keel_1", "status": "completed", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

func callItem(id, name, args string) map[string]any {
	return map[string]any{"type": "function_call", "id": "fc_keel_1", "call_id": id, "name": name, "arguments": args, "status": "completed"}
}

func responsesText(text string) providertest.Reply {
	return providertest.Reply{Body: js(responseObject("completed", []any{messageItem(text)}, responsesUsage))}
}

func responsesToolCall(id, name, args string) providertest.Reply {
	return providertest.Reply{Body: js(responseObject("completed", []any{callItem(id, name, args)}, responsesUsage))}
}

func event(typ string, seq int, fields map[string]any) string {
	fields["type"] = typ
	fields["sequence_number"] = seq
	return "event: " + typ + "\ndata: " + js(fields)
}

func responsesStreamText(text string) providertest.Reply {
	events := []string{
		event("response.created", 0, map[string]any{"response": responseObject("in_progress", []any{}, nil)}),
		event("response.output_item.added", 1, map[string]any{"output_index": 0, "item": map[string]any{
			"type": "message", "id": "msg_keel_1", "status": "in_progress", "role": "assistant", "content": []any{}}}),
	}
	for _, piece := range halves(text) {
		events = append(events, event("response.output_text.delta", len(events), map[string]any{
			"item_id": "msg_keel_1", "output_index": 0, "content_index": 0, "delta": piece}))
	}
	events = append(events,
		event("response.output_text.done", len(events), map[string]any{"item_id": "msg_keel_1", "output_index": 0, "content_index": 0, "text": text}),
		event("response.output_item.done", len(events)+1, map[string]any{"output_index": 0, "item": messageItem(text)}),
		event("response.completed", len(events)+2, map[string]any{"response": responseObject("completed", []any{messageItem(text)}, responsesUsage)}),
	)
	return sse(events...)
}

func responsesStreamToolCall(id, name, args string) providertest.Reply {
	events := []string{
		event("response.created", 0, map[string]any{"response": responseObject("in_progress", []any{}, nil)}),
		event("response.output_item.added", 1, map[string]any{"output_index": 0, "item": callItem(id, name, "")}),
	}
	for _, piece := range halves(args) {
		events = append(events, event("response.function_call_arguments.delta", len(events), map[string]any{
			"item_id": "fc_keel_1", "output_index": 0, "delta": piece}))
	}
	events = append(events,
		event("response.function_call_arguments.done", len(events), map[string]any{"item_id": "fc_keel_1", "output_index": 0, "arguments": args}),
		event("response.output_item.done", len(events)+1, map[string]any{"output_index": 0, "item": callItem(id, name, args)}),
		event("response.completed", len(events)+2, map[string]any{"response": responseObject("completed", []any{callItem(id, name, args)}, responsesUsage)}),
	)
	return sse(events...)
}

func responsesStreamError() (providertest.Reply, int, string) {
	return sse(
		event("response.created", 0, map[string]any{"response": responseObject("in_progress", []any{}, nil)}),
		event("error", 1, map[string]any{"code": "server_error", "message": "The server had an error while processing your request. Sorry about that!", "param": nil}),
	), 500, "server_error"
}

// responsesBody is the part of a Responses API request the tests read.
type responsesBody struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Input  []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		CallID  string          `json:"call_id"`
		Output  string          `json:"output"`
	} `json:"input"`
}

type responsesContentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
	FileID   string `json:"file_id"`
	FileData string `json:"file_data"`
	FileURL  string `json:"file_url"`
	Filename string `json:"filename"`
}

func decodeResponses(t testing.TB, body []byte) responsesBody {
	t.Helper()
	var b responsesBody
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("Got(request body) = %.200s; want JSON: %v", body, err)
	}
	return b
}

func responsesParts(t testing.TB, raw json.RawMessage) []responsesContentPart {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []responsesContentPart{{Type: "input_text", Text: s}}
	}
	var parts []responsesContentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		t.Fatalf("Got(content) = %.200s; want a string or parts: %v", raw, err)
	}
	return parts
}

func responsesSentText(t testing.TB, body []byte) []string {
	var out []string
	for _, in := range decodeResponses(t, body).Input {
		if in.Role != "user" {
			continue
		}
		for _, p := range responsesParts(t, in.Content) {
			if p.Type == "input_text" {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

func responsesSentFiles(t testing.TB, body []byte) []providertest.SentFile {
	var out []providertest.SentFile
	for _, in := range decodeResponses(t, body).Input {
		if in.Role != "user" {
			continue
		}
		for _, p := range responsesParts(t, in.Content) {
			switch {
			case p.Type == "input_image" && p.FileID != "":
				out = append(out, providertest.SentFile{Encoding: "file-id", URL: p.FileID})
			case p.Type == "input_image" && len(p.ImageURL) > 5 && p.ImageURL[:5] == "data:":
				out = append(out, fromDataURL(t, p.ImageURL, "data-url", ""))
			case p.Type == "input_image":
				out = append(out, providertest.SentFile{Encoding: "url", URL: p.ImageURL})
			case p.Type == "input_file" && p.FileID != "":
				out = append(out, providertest.SentFile{Encoding: "file-id", URL: p.FileID})
			case p.Type == "input_file" && p.FileURL != "":
				out = append(out, providertest.SentFile{Encoding: "url", URL: p.FileURL})
			case p.Type == "input_file":
				out = append(out, fromDataURL(t, p.FileData, "data-url", p.Filename))
			}
		}
	}
	return out
}
