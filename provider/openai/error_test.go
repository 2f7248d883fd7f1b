package openai_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
)

func TestErrorFields(t *testing.T) {
	tests := []struct {
		name          string
		reply         providertest.Reply
		wantStatus    int
		wantRetryable bool
		wantType      string
		wantCode      string
		wantMessage   string
		wantSDK       bool
		wantMediaType string
	}{
		{"file rejected", errorReply(providertest.FileRejected), 400, false, "invalid_request_error", "invalid_value",
			"Invalid file data: 'messages[1].content[0].file.file_data'. Expected a base64-encoded data URL with an application/pdf MIME type, but got unsupported MIME type 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'.", true,
			providertest.XLSX},
		{"image format", providertest.Reply{Status: 400, Body: `{"error":{"message":"Invalid MIME type. Only image types are supported.","type":"invalid_request_error","param":null,"code":"invalid_image_format"}}`},
			400, false, "invalid_request_error", "invalid_image_format", "Invalid MIME type. Only image types are supported.", true, ""},
		{"html from a proxy", providertest.Reply{Status: 502, ContentType: "text/html", Body: "<html><body>502 Bad Gateway</body></html>"},
			502, true, "", "", "Bad Gateway", true, ""},
		{"x-should-retry false wins", providertest.Reply{Status: 500, Header: http.Header{"X-Should-Retry": {"false"}}, Body: internalBody},
			500, false, "server_error", "server_error", "The server had an error while processing your request. Sorry about that!", true, ""},
		{"x-should-retry true", providertest.Reply{Status: 400, Header: http.Header{"X-Should-Retry": {"true"}}, Body: badRequestBody},
			400, true, "invalid_request_error", "empty_array", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", true, ""},
		{"says retry", providertest.Reply{Status: 400, Body: `{"error":{"message":"An error occurred while processing your request. You can retry your request, or contact us through our help center.","type":"invalid_request_error","param":null,"code":null}}`},
			400, true, "invalid_request_error", "invalid_request_error", "An error occurred while processing your request. You can retry your request, or contact us through our help center.", true, ""},
		{"says retry, x-should-retry false", providertest.Reply{Status: 400, Header: http.Header{"X-Should-Retry": {"false"}}, Body: `{"error":{"message":"You can retry your request.","type":"invalid_request_error","param":null,"code":null}}`},
			400, false, "invalid_request_error", "invalid_request_error", "You can retry your request.", true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t, tc.reply)
			m := model(t, s, openai.Options{})
			_, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
			var ae *keel.APICallError
			if !errors.As(err, &ae) {
				t.Fatalf("Got(error) = %T %v; want *keel.APICallError", err, err)
			}
			if ae.StatusCode != tc.wantStatus || ae.Retryable != tc.wantRetryable || ae.Type != tc.wantType ||
				ae.Code != tc.wantCode || ae.Message != tc.wantMessage || ae.Body != tc.reply.Body || ae.MediaType != tc.wantMediaType {
				t.Errorf("Got(error) = %d %v %q %q %q body %q media type %q; want %d %v %q %q %q body %q media type %q",
					ae.StatusCode, ae.Retryable, ae.Type, ae.Code, ae.Message, ae.Body, ae.MediaType,
					tc.wantStatus, tc.wantRetryable, tc.wantType, tc.wantCode, tc.wantMessage, tc.reply.Body, tc.wantMediaType)
			}
			if ae.URL != s.URL()+"/v1/chat/completions" {
				t.Errorf("Got(URL) = %q; want the chat completions URL", ae.URL)
			}
			if isSDKError(err) != tc.wantSDK {
				t.Errorf("Got(errors.As *openai.Error) = %v; want %v", isSDKError(err), tc.wantSDK)
			}
		})
	}
}

func TestErrorMessageCarriesTheProvidersWords(t *testing.T) {
	s := providertest.NewServer(t, errorReply(providertest.Unauthorized))
	m := model(t, s, openai.Options{})
	_, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
	want := "openai: API call failed with status 401: Incorrect API key provided: sk-keel. You can find your API key at https://platform.openai.com/account/api-keys."
	if err == nil || err.Error() != want {
		t.Errorf("Got(Error()) = %v; want %q", err, want)
	}
}

func TestStreamErrorEvents(t *testing.T) {
	tests := []struct {
		name       string
		api        string
		reply      providertest.Reply
		wantStatus int
		wantCode   string
	}{
		{"chat rate limit", openai.APIChat, sse(chatChunk(map[string]any{"content": "a"}, nil), "data: "+rateLimitedBody), 429, "rate_limit_exceeded"},
		{"responses failed", openai.APIResponses, sse(
			event("response.created", 0, map[string]any{"response": responseObject("in_progress", []any{}, nil)}),
			event("response.failed", 1, map[string]any{"response": func() map[string]any {
				r := responseObject("failed", []any{}, nil)
				r["error"] = map[string]any{"code": "server_error", "message": "The model failed to generate a response."}
				return r
			}()}),
		), 500, "server_error"},
		{"responses rate limit", openai.APIResponses, sse(
			event("error", 0, map[string]any{"code": "rate_limit_exceeded", "message": "Rate limit reached.", "param": nil}),
		), 429, "rate_limit_exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t, tc.reply)
			m := model(t, s, openai.Options{API: tc.api})
			c := providertest.Collect(t, m.Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}))
			var ae *keel.APICallError
			if !errors.As(c.Err, &ae) || ae.StatusCode != tc.wantStatus || ae.Code != tc.wantCode || !ae.Retryable || ae.Message == "" {
				t.Errorf("Got(stream error) = %v; want status %d code %q, retryable", c.Err, tc.wantStatus, tc.wantCode)
			}
		})
	}
}

// A 200 that carries no stream at all is not an empty answer: the same
// request may succeed, so it is a retryable APICallError.
func TestEmptyStreamIsRetryable(t *testing.T) {
	for _, api := range []string{openai.APIChat, openai.APIResponses} {
		t.Run(api, func(t *testing.T) {
			s := providertest.NewServer(t, providertest.Reply{Body: "", ContentType: "text/event-stream"})
			m := model(t, s, openai.Options{API: api})
			c := providertest.Collect(t, m.Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}))
			var ae *keel.APICallError
			if !errors.As(c.Err, &ae) || ae.StatusCode != 0 || !ae.Retryable || c.Finish != nil {
				t.Errorf("Got(stream) = %v, finish %v; want a retryable APICallError with no status", c.Err, c.Finish)
			}
		})
	}
}

func TestRefusalsOfEveryServer(t *testing.T) {
	providertest.CheckRefusals(t, func(t *testing.T, url string) keel.Model {
		m, err := openai.New("m", openai.Options{ProviderName: "local", BaseURL: url + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}, providertest.OpenAICompatibleRefusals)
}
