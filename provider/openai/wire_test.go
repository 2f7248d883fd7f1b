package openai_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// The real bodies OpenAI answers, as captured from the API and its reference.
const (
	badRequestBody   = `{"error":{"message":"Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.","type":"invalid_request_error","param":"messages","code":"empty_array"}}`
	fileRejectedBody = `{"error":{"message":"Invalid file data: 'messages[1].content[0].file.file_data'. Expected a base64-encoded data URL with an application/pdf MIME type, but got unsupported MIME type 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'.","type":"invalid_request_error","param":"messages[1].content[0].file.file_data","code":"invalid_value"}}`
	rateLimitedBody  = `{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-keel on tokens per min (TPM): Limit 200000, Used 199000, Requested 1800. Please try again in 240ms. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`
	overloadedBody   = `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`
	unauthorizedBody = `{"error":{"message":"Incorrect API key provided: sk-keel. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	internalBody     = `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`
	forbiddenBody    = `{"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported","param":null,"type":"request_forbidden"}}`
	notFoundBody     = `{"error":{"message":"The model ` + "`gpt-9`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`
	// badGatewayBody is the page of the proxy in front of the API.
	badGatewayBody = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"
)

// errorCodes are the Codes of the errorReply answers.
var errorCodes = map[providertest.ErrorKind]string{
	providertest.BadRequest:   "empty_array",
	providertest.FileRejected: "invalid_value",
	providertest.RateLimited:  "rate_limit_exceeded",
	providertest.Unavailable:  "server_error",
	providertest.Overloaded:   "server_error",
	providertest.Unauthorized: "invalid_api_key",
	providertest.Internal:     "server_error",
	providertest.Forbidden:    "unsupported_country_region_territory",
	providertest.NotFound:     "model_not_found",
	providertest.BadGateway:   "",
}

func errorReply(kind providertest.ErrorKind) providertest.Reply {
	switch kind {
	case providertest.BadRequest:
		return providertest.Reply{Status: 400, Body: badRequestBody}
	case providertest.FileRejected:
		return providertest.Reply{Status: 400, Body: fileRejectedBody}
	case providertest.RateLimited:
		return providertest.Reply{Status: 429, Body: rateLimitedBody, Header: http.Header{
			"Retry-After": {"1"}, "X-Ratelimit-Limit-Tokens": {"200000"}, "X-Ratelimit-Reset-Tokens": {"240ms"},
		}}
	case providertest.Unavailable, providertest.Overloaded:
		return providertest.Reply{Status: 503, Body: overloadedBody}
	case providertest.Unauthorized:
		return providertest.Reply{Status: 401, Body: unauthorizedBody}
	case providertest.Forbidden:
		return providertest.Reply{Status: 403, Body: forbiddenBody}
	case providertest.NotFound:
		return providertest.Reply{Status: 404, Body: notFoundBody}
	case providertest.BadGateway:
		return providertest.Reply{Status: 502, Body: badGatewayBody, ContentType: "text/html"}
	}
	return providertest.Reply{Status: 500, Body: internalBody}
}

func sse(events ...string) providertest.Reply {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e)
		b.WriteString("\n\n")
	}
	return providertest.Reply{Body: b.String(), ContentType: "text/event-stream"}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// halves splits s in two, so a stream carries it in two pieces.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	return []string{s[:len(s)/2], s[len(s)/2:]}
}

var chatUsage = map[string]int{"prompt_tokens": providertest.InputTokens, "completion_tokens": providertest.OutputTokens, "total_tokens": providertest.InputTokens + providertest.OutputTokens}

func chatCompletion(message map[string]any, finish string) providertest.Reply {
	return providertest.Reply{Body: js(map[string]any{
		"id": providertest.ResponseID, "object": "chat.completion", "created": 1764460800, "model": providertest.ModelID,
		"choices": []any{map[string]any{"index": 0, "message": message, "logprobs": nil, "finish_reason": finish}},
		"usage":   chatUsage, "system_fingerprint": "fp_keel",
	})}
}

func chatText(text string) providertest.Reply {
	return chatCompletion(map[string]any{"role": "assistant", "content": text, "refusal": nil, "annotations": []any{}}, "stop")
}

func chatToolCall(id, name, args string) providertest.Reply {
	return chatCompletion(map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{},
		"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}, "tool_calls")
}

func chatChunk(delta map[string]any, finish any) string {
	return "data: " + js(map[string]any{
		"id": providertest.ResponseID, "object": "chat.completion.chunk", "created": 1764460800, "model": providertest.ModelID,
		"system_fingerprint": "fp_keel",
		"choices":            []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
	})
}

func chatTail(finish string) []string {
	return []string{
		chatChunk(map[string]any{}, finish),
		"data: " + js(map[string]any{"id": providertest.ResponseID, "object": "chat.completion.chunk", "created": 1764460800,
			"model": providertest.ModelID, "choices": []any{}, "usage": chatUsage}),
		"data: [DONE]",
	}
}

func chatStreamText(text string) providertest.Reply {
	events := []string{chatChunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil)}
	for _, piece := range strings.SplitAfter(text, " ") {
		events = append(events, chatChunk(map[string]any{"content": piece}, nil))
	}
	return sse(append(events, chatTail("stop")...)...)
}

func chatStreamToolCall(id, name, args string) providertest.Reply {
	events := []string{chatChunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"index": 0, "id": id, "type": "function", "function": map[string]any{"name": name, "arguments": ""}}}}, nil)}
	for _, piece := range halves(args) {
		events = append(events, chatChunk(map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "function": map[string]any{"arguments": piece}}}}, nil))
	}
	return sse(append(events, chatTail("tool_calls")...)...)
}

// chatBody is the part of a Chat Completions request the tests read.
type chatBody struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type chatContentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
	File *struct {
		FileData string `json:"file_data"`
		FileID   string `json:"file_id"`
		Filename string `json:"filename"`
	} `json:"file"`
}

func decodeChat(t testing.TB, body []byte) chatBody {
	t.Helper()
	var b chatBody
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("Got(request body) = %.200s; want JSON: %v", body, err)
	}
	return b
}

// contentParts reads a message's content, a string or a list of parts.
func contentParts(t testing.TB, raw json.RawMessage) []chatContentPart {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []chatContentPart{{Type: "text", Text: s}}
	}
	var parts []chatContentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		t.Fatalf("Got(content) = %.200s; want a string or parts: %v", raw, err)
	}
	return parts
}

func chatSentText(t testing.TB, body []byte) []string {
	var out []string
	for _, m := range decodeChat(t, body).Messages {
		if m.Role != "user" {
			continue
		}
		for _, p := range contentParts(t, m.Content) {
			if p.Type == "text" {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

func fromDataURL(t testing.TB, u, encoding, name string) providertest.SentFile {
	t.Helper()
	mt, data, err := keel.ParseDataURL(u)
	if err != nil {
		t.Fatalf("Got(data URL) = %.80s; want one: %v", u, err)
	}
	return providertest.SentFile{MediaType: keel.NormalizeMediaType(mt), Name: name, Encoding: encoding, Data: data}
}

func chatSentFiles(t testing.TB, body []byte) []providertest.SentFile {
	var out []providertest.SentFile
	for _, m := range decodeChat(t, body).Messages {
		if m.Role != "user" {
			continue
		}
		for _, p := range contentParts(t, m.Content) {
			switch {
			case p.ImageURL != nil && strings.HasPrefix(p.ImageURL.URL, "data:"):
				out = append(out, fromDataURL(t, p.ImageURL.URL, "data-url", ""))
			case p.ImageURL != nil:
				out = append(out, providertest.SentFile{Encoding: "url", URL: p.ImageURL.URL})
			case p.InputAudio != nil:
				data, err := keel.DecodeBase64(p.InputAudio.Data)
				if err != nil {
					t.Fatalf("Got(input_audio data) undecodable: %v", err)
				}
				mt := map[string]string{"wav": "audio/wav", "mp3": "audio/mpeg"}[p.InputAudio.Format]
				out = append(out, providertest.SentFile{MediaType: mt, Encoding: "base64", Data: data})
			case p.File != nil && p.File.FileID != "":
				out = append(out, providertest.SentFile{Encoding: "file-id", URL: p.File.FileID})
			case p.File != nil:
				out = append(out, fromDataURL(t, p.File.FileData, "data-url", p.File.Filename))
			}
		}
	}
	return out
}

func chatStreamError() (providertest.Reply, int, string) {
	return sse(
		chatChunk(map[string]any{"role": "assistant", "content": "Par"}, nil),
		`data: `+internalBody,
	), 500, "server_error"
}
