package anthropic_test

import (
	"errors"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/providertest"
)

const xlsx = providertest.XLSX

func newModel(t testing.TB, baseURL string) *anthropic.Model {
	t.Helper()
	return newModelWith(t, baseURL, providertest.Timeouts{})
}

func newModelWith(t testing.TB, baseURL string, timeouts providertest.Timeouts) *anthropic.Model {
	t.Helper()
	m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "sk-ant-test", BaseURL: baseURL,
		IdleTimeout: timeouts.Idle, FirstByteTimeout: timeouts.FirstByte})
	if err != nil {
		t.Fatalf("Got(New) = %v; want a model", err)
	}
	return m
}

func harness() providertest.Harness {
	stream := func(body string) providertest.Reply {
		return providertest.Reply{Body: body, ContentType: "text/event-stream"}
	}
	return providertest.Harness{
		Provider: "anthropic",
		NewModel: func(t testing.TB, baseURL string, timeouts providertest.Timeouts) keel.Model {
			return newModelWith(t, baseURL, timeouts)
		},
		Text: func(text string) providertest.Reply { return providertest.Reply{Body: textBody(text)} },
		StreamText: func(text string) providertest.Reply {
			return stream(streamTextBody(text))
		},
		ToolCall: func(id, name, args string) providertest.Reply {
			return providertest.Reply{Body: toolCallBody(id, name, args)}
		},
		StreamToolCall: func(id, name, args string) providertest.Reply {
			return stream(streamToolCallBody(id, name, args))
		},
		Error: errorReply,
		ErrorCodes: map[providertest.ErrorKind]string{
			providertest.BadRequest:   "invalid_request_error",
			providertest.FileRejected: "invalid_request_error",
			providertest.RateLimited:  "rate_limit_error",
			providertest.Unavailable:  "api_error",
			providertest.Overloaded:   "overloaded_error",
			providertest.Unauthorized: "authentication_error",
			providertest.Internal:     "api_error",
			providertest.Forbidden:    "permission_error",
			providertest.NotFound:     "not_found_error",
			providertest.BadGateway:   "",
		},
		// The 400 lists the types the API takes, not the one it refused.
		RefusedMediaType: "",
		StreamError:      streamErrorReply,
		IsSDKError: func(err error) bool {
			var e *sdk.Error
			return errors.As(err, &e)
		},
		SentFiles: sentFiles,
		SentText:  sentText,
		RefusesUpFront: map[string]string{
			xlsx:        "media type: " + xlsx,
			"audio/wav": "media type: audio/wav",
			"text/csv":  "media type: text/csv",
		},
		GeneratePath: "/v1/messages",
		StreamPath:   "/v1/messages",
	}
}

func TestConformance(t *testing.T) {
	providertest.Run(t, harness())
}
