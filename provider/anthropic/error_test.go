package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// TestStreamErrorEvents checks the status each error event type implies.
func TestStreamErrorEvents(t *testing.T) {
	tests := []struct {
		errType   string
		status    int
		retryable bool
	}{
		{"overloaded_error", 529, true},
		{"rate_limit_error", 429, true},
		{"api_error", 500, true},
		{"timeout_error", 504, true},
		{"invalid_request_error", 400, false},
		{"authentication_error", 401, false},
		{"permission_error", 403, false},
		{"not_found_error", 404, false},
		{"request_too_large", 413, false},
		{"some_new_error", 500, true},
	}
	for _, tc := range tests {
		t.Run(tc.errType, func(t *testing.T) {
			var b strings.Builder
			streamStart(&b)
			sse(&b, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			sse(&b, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`)
			body := errorBody(tc.errType, "went wrong: "+tc.errType)
			sse(&b, "error", body)
			s := providertest.NewServer(t, providertest.Reply{Body: b.String(), ContentType: "text/event-stream"})
			c := providertest.Collect(t, newModel(t, s.URL()).Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}))
			if c.Text != "Hel" {
				t.Errorf("Got(text before the error) = %q; want %q", c.Text, "Hel")
			}
			var ae *keel.APICallError
			if !errors.As(c.Err, &ae) {
				t.Fatalf("Got(error) = %T %v; want *keel.APICallError", c.Err, c.Err)
			}
			if ae.StatusCode != tc.status || ae.Retryable != tc.retryable || ae.Type != tc.errType ||
				ae.Message != "went wrong: "+tc.errType || ae.Body != body || !strings.HasSuffix(ae.URL, "/v1/messages") {
				t.Errorf("Got(error) = %d %v %q %q %q %q; want %d %v %q with the message, the event's body and the URL",
					ae.StatusCode, ae.Retryable, ae.Type, ae.Message, ae.Body, ae.URL, tc.status, tc.retryable, tc.errType)
			}
			var se *sdk.Error
			if !errors.As(c.Err, &se) {
				t.Errorf("Got(errors.As *anthropic.Error) = false; want true")
			}
		})
	}
}

func TestErrorFields(t *testing.T) {
	const coded = `{"type":"error","error":{"type":"rate_limit_error","message":"Spend limit reached.","details":{"error_code":"enforced_spend_limit_reached"}},"request_id":"req_1"}`
	tests := []struct {
		name      string
		reply     providertest.Reply
		status    int
		retryable bool
		typ, code string
		message   string
	}{
		{"error code", providertest.Reply{Status: 429, Body: coded}, 429, true, "rate_limit_error", "enforced_spend_limit_reached", "Spend limit reached."},
		{"x-should-retry false wins", providertest.Reply{Status: 529, Header: http.Header{"X-Should-Retry": {"false"}}, Body: errorBody("overloaded_error", "Overloaded")}, 529, false, "overloaded_error", "overloaded_error", "Overloaded"},
		{"x-should-retry true", providertest.Reply{Status: 400, Header: http.Header{"X-Should-Retry": {"true"}}, Body: errorBody("invalid_request_error", "bad")}, 400, true, "invalid_request_error", "invalid_request_error", "bad"},
		{"body that is not JSON", providertest.Reply{Status: 502, ContentType: "text/html", Body: "<html>Bad Gateway</html>"}, 502, true, "", "", "Bad Gateway"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := providertest.NewServer(t, tc.reply)
			_, err := newModel(t, s.URL()).Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
			var ae *keel.APICallError
			if !errors.As(err, &ae) {
				t.Fatalf("Got(error) = %T %v; want *keel.APICallError", err, err)
			}
			if ae.StatusCode != tc.status || ae.Retryable != tc.retryable || ae.Type != tc.typ || ae.Code != tc.code || ae.Message != tc.message || ae.Body != tc.reply.Body {
				t.Errorf("Got(error) = %d %v %q %q %q %q; want %d %v %q %q %q %q",
					ae.StatusCode, ae.Retryable, ae.Type, ae.Code, ae.Message, ae.Body, tc.status, tc.retryable, tc.typ, tc.code, tc.message, tc.reply.Body)
			}
			if tc.message != "" && !strings.Contains(err.Error(), tc.message) {
				t.Errorf("Got(Error()) = %q; want the provider's message in it", err.Error())
			}
		})
	}
}

// TestStreamCutShort checks that a stream whose body ends before
// message_stop is a retryable failure, not a silent short answer.
func TestStreamCutShort(t *testing.T) {
	var b strings.Builder
	streamStart(&b)
	sse(&b, "content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	sse(&b, "content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`)
	s := providertest.NewServer(t, providertest.Reply{Body: b.String(), ContentType: "text/event-stream"})
	c := providertest.Collect(t, newModel(t, s.URL()).Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}))
	var ae *keel.APICallError
	if !errors.As(c.Err, &ae) || ae.StatusCode != 0 || !ae.Retryable || c.Finish != nil {
		t.Errorf("Got(error, finish) = %v, %v; want a retryable APICallError with status 0 and no finish", c.Err, c.Finish)
	}
}

// TestUndecodableAnswer checks that a 200 the SDK cannot decode is an
// error of the adapter, not an API error to retry. (A body cut short is
// read as a dropped connection instead.)
func TestUndecodableAnswer(t *testing.T) {
	s := providertest.NewServer(t, providertest.Reply{Body: `{"id": nope}`})
	_, err := newModel(t, s.URL()).Generate(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}})
	var ae *keel.APICallError
	if err == nil || errors.As(err, &ae) || !strings.HasPrefix(err.Error(), "anthropic: generate: ") {
		t.Errorf("Got(error) = %v; want an anthropic: generate: error that is not an APICallError", err)
	}
}

func TestRefusalsByField(t *testing.T) {
	providertest.CheckRefusals(t, func(t *testing.T, url string) keel.Model { return newModel(t, url) }, providertest.AnthropicRefusals)
}
