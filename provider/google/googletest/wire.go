package googletest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/keel-go/keel/provider/providertest"
)

// The values every success body of this package reports; they are the
// conformance suite's, so its checks hold.
const (
	// ResponseID is the responseId of every success body.
	ResponseID = providertest.ResponseID
	// ModelVersion is the modelVersion of every success body.
	ModelVersion = providertest.ModelID
	// InputTokens is the promptTokenCount of every success body.
	InputTokens = providertest.InputTokens
	// OutputTokens is the final candidatesTokenCount of every success body.
	OutputTokens = providertest.OutputTokens
)

// The real error bodies of the Gemini API.
const (
	// InternalMessage is the message of Gemini's 500 and 502 INTERNAL
	// answers, which say nothing about what failed.
	InternalMessage = "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	// UnsupportedMIMEPrefix starts the message of the 400 Gemini answers
	// for a file type it does not read; the media type follows.
	UnsupportedMIMEPrefix = "Unsupported MIME type: "
	// BadRequestMessage is a 400 that has nothing to do with files.
	BadRequestMessage = "* GenerateContentRequest.generation_config.max_output_tokens: max_output_tokens must be positive.\n"
	// RateLimitedMessage is Gemini's 429 RESOURCE_EXHAUSTED message.
	RateLimitedMessage = "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
	// UnavailableMessage is Gemini's 503 UNAVAILABLE message.
	UnavailableMessage = "The model is overloaded. Please try again later."
	// PermissionDeniedMessage is Gemini's 403 PERMISSION_DENIED message for
	// a request without a key.
	PermissionDeniedMessage = "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
	// NotFoundMessage is Gemini's 404 NOT_FOUND message for a model it
	// does not have.
	NotFoundMessage = "models/gemini-9-flash is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods."
	// UnauthenticatedMessage is Gemini's 401 UNAUTHENTICATED message.
	UnauthenticatedMessage = "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
)

// ErrorBody is Gemini's error body: {"error":{"code","message","status"}}.
func ErrorBody(code int, status, message string) string {
	return mustJSON(map[string]any{"error": map[string]any{"code": code, "message": message, "status": status}})
}

// QuotaBody is the body of Gemini's 429 RESOURCE_EXHAUSTED for a quota
// that refills: a QuotaFailure, a Help link and a RetryInfo holding the
// wait, such as "38s" or "12.771204034s".
func QuotaBody(retryDelay string) string {
	return mustJSON(map[string]any{"error": map[string]any{
		"code": 429, "message": RateLimitedMessage, "status": "RESOURCE_EXHAUSTED",
		"details": []map[string]any{
			{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []map[string]any{{
				"quotaMetric":     "generativelanguage.googleapis.com/generate_content_free_tier_requests",
				"quotaId":         "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
				"quotaDimensions": map[string]string{"location": "global", "model": "gemini-2.5-flash"},
				"quotaValue":      "10",
			}}},
			{"@type": "type.googleapis.com/google.rpc.Help", "links": []map[string]any{{
				"description": "Learn more about Gemini API quotas",
				"url":         "https://ai.google.dev/gemini-api/docs/rate-limits",
			}}},
			{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retryDelay},
		},
	}})
}

// UnsupportedMIMEBody is the 400 INVALID_ARGUMENT body Gemini answers an
// inline file of a type it does not read with.
func UnsupportedMIMEBody(mediaType string) string {
	return ErrorBody(400, "INVALID_ARGUMENT", UnsupportedMIMEPrefix+mediaType)
}

// InternalBody is the body of Gemini's 500 or 502 INTERNAL answer.
func InternalBody(code int) string {
	return ErrorBody(code, "INTERNAL", InternalMessage)
}

// TextBody is a generateContent answer holding text, finished with STOP.
func TextBody(text string) string {
	return mustJSON(response([]map[string]any{{"text": text}}, "STOP", OutputTokens))
}

// ToolCallBody is a generateContent answer holding one function call.
// Gemini often gives no call ID: id "" leaves it out.
func ToolCallBody(id, name, argsJSON string) string {
	return mustJSON(response([]map[string]any{functionCall(id, name, argsJSON)}, "STOP", OutputTokens))
}

// StreamTextBody is a streamGenerateContent?alt=sse answer sending text
// word by word (at least two chunks for two words or more), the last
// chunk finishing with STOP. Usage in each chunk is the running total, as
// Gemini sends it.
func StreamTextBody(text string) string {
	words := splitWords(text)
	var b strings.Builder
	for i, w := range words {
		finish := ""
		out := OutputTokens * (i + 1) / len(words)
		if i == len(words)-1 {
			finish = "STOP"
		}
		writeEvent(&b, response([]map[string]any{{"text": w}}, finish, out))
	}
	return b.String()
}

// StreamToolCallBody is a stream sending a little text, then one function
// call, whole: Gemini never splits a call's arguments over chunks.
func StreamToolCallBody(id, name, argsJSON string) string {
	var b strings.Builder
	writeEvent(&b, response([]map[string]any{{"text": "Let me check."}}, "", 2))
	writeEvent(&b, response([]map[string]any{functionCall(id, name, argsJSON)}, "STOP", OutputTokens))
	return b.String()
}

// StreamErrorBody is a stream that opened with 200, sent some text, then
// an error chunk with code and status, as Gemini does when it fails half
// way.
func StreamErrorBody(code int, status, message string) string {
	var b strings.Builder
	writeEvent(&b, response([]map[string]any{{"text": "Partial "}}, "", 1))
	b.WriteString("data: " + ErrorBody(code, status, message) + "\n\n")
	return b.String()
}

// SSEEvent frames one JSON value as Gemini's server-sent event.
func SSEEvent(v any) string {
	var b strings.Builder
	writeEvent(&b, v)
	return b.String()
}

func writeEvent(b *strings.Builder, v any) {
	b.WriteString("data: ")
	b.WriteString(mustJSON(v))
	b.WriteString("\n\n")
}

func response(parts []map[string]any, finish string, outputTokens int) map[string]any {
	cand := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
	if finish != "" {
		cand["finishReason"] = finish
	}
	return map[string]any{
		"candidates": []any{cand},
		"usageMetadata": map[string]any{
			"promptTokenCount":     InputTokens,
			"candidatesTokenCount": outputTokens,
			"totalTokenCount":      InputTokens + outputTokens,
		},
		"modelVersion": ModelVersion,
		"responseId":   ResponseID,
	}
}

func functionCall(id, name, argsJSON string) map[string]any {
	var args any
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		panic(fmt.Sprintf("googletest: tool call arguments are not JSON: %v", err))
	}
	fc := map[string]any{"name": name, "args": args}
	if id != "" {
		fc["id"] = id
	}
	return map[string]any{"functionCall": fc}
}

// splitWords cuts text after each space, keeping the spaces, so the
// pieces join back to text.
func splitWords(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("googletest: %v", err))
	}
	return string(b)
}
