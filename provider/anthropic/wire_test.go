package anthropic_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/providertest"
)

// The Messages API's answers, as api.anthropic.com writes them.

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func textBody(text string) string {
	return fmt.Sprintf(`{"id":%q,"type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":%d,"service_tier":"standard"}}`,
		providertest.ResponseID, providertest.ModelID, jsonString(text), providertest.InputTokens, providertest.OutputTokens)
}

func toolCallBody(id, name, args string) string {
	return fmt.Sprintf(`{"id":%q,"type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":%q,"name":%q,"input":%s}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":%d}}`,
		providertest.ResponseID, providertest.ModelID, id, name, args, providertest.InputTokens, providertest.OutputTokens)
}

func sse(b *strings.Builder, event, data string) {
	fmt.Fprintf(b, "event: %s\ndata: %s\n\n", event, data)
}

func streamStart(b *strings.Builder) {
	sse(b, "message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`,
		providertest.ResponseID, providertest.ModelID, providertest.InputTokens))
}

func streamEnd(b *strings.Builder, stop string) {
	sse(b, "message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, providertest.OutputTokens))
	sse(b, "message_stop", `{"type":"message_stop"}`)
}

// words splits text into pieces that keep their spaces, so they join back
// into text.
func words(text string) []string {
	var out []string
	for _, w := range strings.SplitAfter(text, " ") {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

func streamTextBody(text string) string {
	var b strings.Builder
	streamStart(&b)
	sse(&b, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	sse(&b, "ping", `{"type": "ping"}`)
	for _, w := range words(text) {
		sse(&b, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+jsonString(w)+`}}`)
	}
	sse(&b, "content_block_stop", `{"type":"content_block_stop","index":0}`)
	streamEnd(&b, "end_turn")
	return b.String()
}

func streamToolCallBody(id, name, args string) string {
	var b strings.Builder
	streamStart(&b)
	sse(&b, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	sse(&b, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me check."}}`)
	sse(&b, "content_block_stop", `{"type":"content_block_stop","index":0}`)
	sse(&b, "content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, id, name))
	half := len(args) / 2
	for _, piece := range []string{"", args[:half], args[half:]} {
		sse(&b, "content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":`+jsonString(piece)+`}}`)
	}
	sse(&b, "content_block_stop", `{"type":"content_block_stop","index":1}`)
	streamEnd(&b, "tool_use")
	return b.String()
}

const requestID = "req_011CUbsPXuS3xR8JCMYw8Jp2"

func errorBody(errType, message string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%s},"request_id":%q}`, errType, jsonString(message), requestID)
}

// fileRejectedBody is the API's answer to an image block of a type it does
// not read.
const fileRejectedBody = `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"},"request_id":"req_011CUbsPXuS3xR8JCMYw8Jp2"}`

func errorReply(kind providertest.ErrorKind) providertest.Reply {
	h := http.Header{"Request-Id": {requestID}}
	switch kind {
	case providertest.BadRequest:
		return providertest.Reply{Status: 400, Header: h, Body: errorBody("invalid_request_error", "max_tokens: 0 is less than the minimum of 1")}
	case providertest.FileRejected:
		return providertest.Reply{Status: 400, Header: h, Body: fileRejectedBody}
	case providertest.RateLimited:
		h.Set("Retry-After", "12")
		h.Set("Anthropic-Ratelimit-Requests-Remaining", "0")
		return providertest.Reply{Status: 429, Header: h, Body: errorBody("rate_limit_error", "This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.")}
	case providertest.Unavailable:
		return providertest.Reply{Status: 503, Header: h, Body: errorBody("api_error", "Service unavailable")}
	case providertest.Overloaded:
		h.Set("X-Should-Retry", "true")
		return providertest.Reply{Status: 529, Header: h, Body: errorBody("overloaded_error", "Overloaded")}
	case providertest.Unauthorized:
		h.Set("X-Should-Retry", "false")
		return providertest.Reply{Status: 401, Header: h, Body: errorBody("authentication_error", "invalid x-api-key")}
	case providertest.Internal:
		return providertest.Reply{Status: 500, Header: h, Body: errorBody("api_error", "Internal server error")}
	case providertest.Forbidden:
		return providertest.Reply{Status: 403, Header: h, Body: errorBody("permission_error", "Your API key does not have permission to use the specified resource.")}
	case providertest.NotFound:
		return providertest.Reply{Status: 404, Header: h, Body: errorBody("not_found_error", "model: claude-sonnet-9")}
	case providertest.BadGateway:
		// The page of the proxy in front of the API.
		return providertest.Reply{Status: 502, ContentType: "text/html",
			Body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"}
	}
	panic(fmt.Sprintf("no Anthropic error for %v", kind))
}

// streamErrorReply opens a stream, then ends it with the overloaded_error
// event the API sends when it runs out of capacity mid-answer.
func streamErrorReply() (providertest.Reply, int, string) {
	var b strings.Builder
	streamStart(&b)
	sse(&b, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	sse(&b, "error", errorBody("overloaded_error", "Overloaded"))
	return providertest.Reply{Body: b.String(), ContentType: "text/event-stream"}, 529, "overloaded_error"
}

// The request body, as far as the tests read it.
type wireRequest struct {
	Model       string          `json:"model"`
	MaxTokens   int             `json:"max_tokens"`
	Temperature *float64        `json:"temperature"`
	Stream      bool            `json:"stream"`
	System      []wireBlock     `json:"system"`
	Messages    []wireMessage   `json:"messages"`
	Tools       []wireTool      `json:"tools"`
	ToolChoice  json.RawMessage `json:"tool_choice"`
}

type wireMessage struct {
	Role    string      `json:"role"`
	Content []wireBlock `json:"content"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Title     string          `json:"title"`
	Source    *wireSource     `json:"source"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   []wireBlock     `json:"content"`
}

type wireSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
	FileID    string `json:"file_id"`
}

type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func decodeRequest(t testing.TB, body []byte) wireRequest {
	t.Helper()
	var r wireRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("Got(request body) = %s; want JSON: %v", body, err)
	}
	return r
}

func sentFiles(t testing.TB, body []byte) []providertest.SentFile {
	t.Helper()
	var files []providertest.SentFile
	for _, m := range decodeRequest(t, body).Messages {
		for _, b := range m.Content {
			if (b.Type != "image" && b.Type != "document") || b.Source == nil {
				continue
			}
			f := providertest.SentFile{Name: b.Title, Encoding: b.Source.Type, MediaType: b.Source.MediaType}
			switch b.Source.Type {
			case "base64":
				data, err := base64.StdEncoding.DecodeString(b.Source.Data)
				if err != nil {
					t.Fatalf("Got(base64 source) = %v; want standard base64", err)
				}
				f.Data = data
			case "text":
				f.Data = []byte(b.Source.Data)
			case "url":
				f.URL = b.Source.URL
			case "file":
				f.Encoding, f.URL = "file-id", b.Source.FileID
			}
			files = append(files, f)
		}
	}
	return files
}

func sentText(t testing.TB, body []byte) []string {
	t.Helper()
	var out []string
	for _, m := range decodeRequest(t, body).Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}
