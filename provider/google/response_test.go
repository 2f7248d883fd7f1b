package google_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

func hi() *keel.Request { return &keel.Request{Messages: []keel.Message{keel.UserText("hi")}} }

// answerOf returns the answer to body, generated (a JSON body) and
// streamed (the same response as one event).
func answerOf(t *testing.T, body string) (*keel.Response, error, providertest.Collected) {
	t.Helper()
	srv := providertest.NewServer(t, jsonReply(body), sseReply(googletest.SSEEvent(json.RawMessage(body))))
	m := newModel(t, srv.URL())
	resp, err := m.Generate(context.Background(), hi())
	return resp, err, providertest.Collect(t, m.Stream(context.Background(), hi()))
}

func candidate(parts, finish string) string {
	return `{"candidates":[{"content":{"role":"model","parts":` + parts + `},"finishReason":"` + finish + `"}],` +
		`"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"thoughtsTokenCount":4,"totalTokenCount":12},` +
		`"modelVersion":"gemini-2.5-flash-001","responseId":"r-9"}`
}

func TestFinishReasons(t *testing.T) {
	text := `[{"text":"x"}]`
	call := `[{"functionCall":{"name":"f","args":{}}}]`
	tests := []struct {
		parts, finish string
		want          keel.FinishReason
	}{
		{text, "STOP", keel.FinishStop},
		{call, "STOP", keel.FinishToolCalls},
		{text, "MAX_TOKENS", keel.FinishLength},
		{text, "SAFETY", keel.FinishContentFilter},
		{text, "RECITATION", keel.FinishContentFilter},
		{text, "PROHIBITED_CONTENT", keel.FinishContentFilter},
		{text, "OTHER", keel.FinishOther},
		{text, "UNEXPECTED_TOOL_CALL", keel.FinishError},
	}
	for _, tt := range tests {
		t.Run(tt.finish, func(t *testing.T) {
			resp, err, c := answerOf(t, candidate(tt.parts, tt.finish))
			if err != nil || c.Err != nil {
				t.Fatalf("Got(errors) = %v, %v; want none", err, c.Err)
			}
			if resp.FinishReason != tt.want || c.Finish.FinishReason != tt.want {
				t.Errorf("Got(finish) = %q, stream %q; want %q", resp.FinishReason, c.Finish.FinishReason, tt.want)
			}
		})
	}
}

// TestUsageAndThoughts checks thinking tokens count as output, thought
// summaries stay out of the answer, and the IDs are read.
func TestUsageAndThoughts(t *testing.T) {
	resp, err, c := answerOf(t, candidate(`[{"text":"pondering","thought":true},{"text":"Hel"},{"text":"lo"}]`, "STOP"))
	if err != nil || c.Err != nil {
		t.Fatalf("Got(errors) = %v, %v; want none", err, c.Err)
	}
	want := keel.Usage{InputTokens: 5, OutputTokens: 7, TotalTokens: 12}
	if resp.Usage != want || c.Finish.Usage != want {
		t.Errorf("Got(usage) = %+v, stream %+v; want %+v", resp.Usage, c.Finish.Usage, want)
	}
	if len(resp.Parts) != 1 || resp.Text() != "Hello" || c.Text != "Hello" {
		t.Errorf("Got(parts) = %+v, stream %q; want one text part \"Hello\"", resp.Parts, c.Text)
	}
	if resp.ID != "r-9" || resp.ModelID != "gemini-2.5-flash-001" {
		t.Errorf("Got(ID, ModelID) = %q, %q; want r-9, gemini-2.5-flash-001", resp.ID, resp.ModelID)
	}
}

// TestToolCallIDs checks calls without an ID get one made from the
// response ID and their position, the same streamed or not.
func TestToolCallIDs(t *testing.T) {
	resp, err, c := answerOf(t, candidate(`[{"functionCall":{"name":"a","args":{"x":1}}},{"functionCall":{"name":"b"}},{"functionCall":{"id":"given","name":"c"}}]`, "STOP"))
	if err != nil || c.Err != nil {
		t.Fatalf("Got(errors) = %v, %v; want none", err, c.Err)
	}
	want := []keel.ToolCallPart{
		{ID: "call_r-9_0", Name: "a", Input: json.RawMessage(`{"x":1}`)},
		{ID: "call_r-9_1", Name: "b", Input: json.RawMessage(`{}`)},
		{ID: "given", Name: "c", Input: json.RawMessage(`{}`)},
	}
	for name, got := range map[string][]keel.ToolCallPart{"generate": resp.ToolCalls(), "stream": c.ToolCalls} {
		if len(got) != len(want) {
			t.Fatalf("Got(%s calls) = %+v; want %+v", name, got, want)
		}
		for i := range want {
			if got[i].ID != want[i].ID || got[i].Name != want[i].Name || string(got[i].Input) != string(want[i].Input) {
				t.Errorf("Got(%s call %d) = %+v; want %+v", name, i, got[i], want[i])
			}
		}
	}
}

// TestThoughtSignatureRoundTrip checks a call's thought signature goes
// back with it in the next request.
func TestThoughtSignatureRoundTrip(t *testing.T) {
	sig := base64.StdEncoding.EncodeToString([]byte("opaque-signature"))
	srv := providertest.NewServer(t,
		jsonReply(candidate(`[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"`+sig+`"}]`, "STOP")),
		jsonReply(googletest.TextBody("done")))
	m := newModel(t, srv.URL())
	resp, err := m.Generate(context.Background(), hi())
	if err != nil {
		t.Fatal(err)
	}
	call := resp.ToolCalls()[0]
	_, err = m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{
		keel.UserText("hi"),
		{Role: keel.RoleAssistant, Parts: []keel.Part{call}},
		{Role: keel.RoleTool, Parts: []keel.Part{keel.ToolResultPart{CallID: call.ID, Name: "f", Output: json.RawMessage(`{}`)}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	body := decode(t, srv.Requests()[1].Body)
	if got := body.Contents[1].Parts[0].ThoughtSignature; got != sig {
		t.Errorf("Got(thought signature sent back) = %q; want %q", got, sig)
	}
}

// TestMalformedFunctionCall checks an answer that ends with
// MALFORMED_FUNCTION_CALL and nothing to act on is an error the retry
// processor recognises. (The SDK drops Gemini's finishMessage, so the
// message cannot quote it.)
func TestMalformedFunctionCall(t *testing.T) {
	body := `{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: print(x"}],"responseId":"r"}`
	_, gerr, c := answerOf(t, body)
	for name, err := range map[string]error{"generate": gerr, "stream": c.Err} {
		var api *keel.APICallError
		if !errors.As(err, &api) {
			t.Fatalf("Got(%s error) = %v; want an APICallError", name, err)
		}
		if api.Code != google.FinishMalformedFunctionCall || api.StatusCode != 200 || !strings.Contains(api.Message, "malformed function call") {
			t.Errorf("Got(%s error) = code %q status %d message %q; want %s, 200 and a message saying so",
				name, api.Code, api.StatusCode, api.Message, google.FinishMalformedFunctionCall)
		}
	}
}

func TestBlockedPrompt(t *testing.T) {
	resp, err, c := answerOf(t, `{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":3,"totalTokenCount":3}}`)
	if err != nil || c.Err != nil {
		t.Fatalf("Got(errors) = %v, %v; want none", err, c.Err)
	}
	if resp.FinishReason != keel.FinishContentFilter || c.Finish.FinishReason != keel.FinishContentFilter || len(resp.Parts) != 0 {
		t.Errorf("Got(blocked answer) = %q %+v, stream %q; want content-filter and no parts", resp.FinishReason, resp.Parts, c.Finish.FinishReason)
	}
}

// TestErrorReason checks the ErrorInfo reason becomes the error's Code.
func TestErrorReason(t *testing.T) {
	body := `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",` +
		`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`
	srv := providertest.NewServer(t, providertest.Reply{Status: 400, Body: body})
	_, err := newModel(t, srv.URL()).Generate(context.Background(), hi())
	var api *keel.APICallError
	if !errors.As(err, &api) {
		t.Fatalf("Got(error) = %v; want an APICallError", err)
	}
	if api.Code != "API_KEY_INVALID" || api.Type != "INVALID_ARGUMENT" || api.Retryable || api.Body != body {
		t.Errorf("Got(error) = code %q type %q retryable %v; want API_KEY_INVALID, INVALID_ARGUMENT, false", api.Code, api.Type, api.Retryable)
	}
	if want := "google: API call failed with status 400: API key not valid. Please pass a valid API key."; err.Error() != want {
		t.Errorf("Got(Error()) = %q; want %q", err.Error(), want)
	}
}

// TestQuotaRetryDelay checks that the wait a 429 RESOURCE_EXHAUSTED asks
// for in its RetryInfo detail becomes the error's RetryDelay, so that the
// retry waits for the quota to refill; a Retry-After header still wins,
// and a delay that cannot be read is none.
func TestQuotaRetryDelay(t *testing.T) {
	tests := []struct {
		name   string
		delay  string
		header http.Header
		want   time.Duration
	}{
		{"seconds", "38s", nil, 38 * time.Second},
		{"fraction", "12.771204034s", nil, 12771204034 * time.Nanosecond},
		{"header wins", "38s", http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{"unreadable", "soon", nil, 0},
		{"negative", "-3s", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := googletest.QuotaBody(tt.delay)
			for _, stream := range []bool{false, true} {
				srv := providertest.NewServer(t, providertest.Reply{Status: 429, Header: tt.header, Body: body})
				m := newModel(t, srv.URL())
				var err error
				if stream {
					err = providertest.Collect(t, m.Stream(context.Background(), hi())).Err
				} else {
					_, err = m.Generate(context.Background(), hi())
				}
				var api *keel.APICallError
				if !errors.As(err, &api) || api.StatusCode != 429 || !api.Retryable || api.Body != body {
					t.Fatalf("Got(error, stream %v) = %v; want the retryable 429 APICallError with its body", stream, err)
				}
				got, asked := api.RetryAfter()
				if got != tt.want || asked != (tt.want > 0) {
					t.Errorf("Got(RetryAfter(), stream %v) = %v, %v; want %v", stream, got, asked, tt.want)
				}
			}
		})
	}
}

// TestUnstreamedAnswer checks a stream request answered with plain JSON,
// one response or an array of them, still gives its answer.
func TestUnstreamedAnswer(t *testing.T) {
	for name, body := range map[string]string{
		"object": googletest.TextBody("whole answer"),
		"array":  `[` + candidate(`[{"text":"whole "}]`, "") + `,` + candidate(`[{"text":"answer"}]`, "STOP") + `]`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := providertest.NewServer(t, jsonReply(body))
			c := providertest.Collect(t, newModel(t, srv.URL()).Stream(context.Background(), hi()))
			if c.Err != nil || c.Text != "whole answer" || c.Finish == nil || c.Finish.FinishReason != keel.FinishStop {
				t.Errorf("Got(stream) = %q, %v, %+v; want \"whole answer\", stop", c.Text, c.Err, c.Finish)
			}
		})
	}
}
