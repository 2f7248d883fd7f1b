package google_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
	"google.golang.org/genai"
)

const testModel = "gemini-2.5-flash"

func newModel(t testing.TB, baseURL string) *google.Model {
	t.Helper()
	return newModelWith(t, baseURL, providertest.Timeouts{})
}

func newModelWith(t testing.TB, baseURL string, timeouts providertest.Timeouts) *google.Model {
	t.Helper()
	m, err := google.New(testModel, google.Options{APIKey: "test-key", BaseURL: baseURL,
		IdleTimeout: timeouts.Idle, FirstByteTimeout: timeouts.FirstByte})
	if err != nil {
		t.Fatalf("Got(New) = %v; want no error", err)
	}
	return m
}

func jsonReply(body string) providertest.Reply { return providertest.Reply{Body: body} }

func sseReply(body string) providertest.Reply {
	return providertest.Reply{Body: body, ContentType: "text/event-stream"}
}

func errorReply(kind providertest.ErrorKind) providertest.Reply {
	switch kind {
	case providertest.BadRequest:
		return providertest.Reply{Status: 400, Body: googletest.ErrorBody(400, "INVALID_ARGUMENT", googletest.BadRequestMessage)}
	case providertest.FileRejected:
		return providertest.Reply{Status: 400, Body: googletest.UnsupportedMIMEBody(providertest.XLSX)}
	case providertest.RateLimited:
		return providertest.Reply{Status: 429, Header: http.Header{"Retry-After": {"7"}},
			Body: googletest.ErrorBody(429, "RESOURCE_EXHAUSTED", googletest.RateLimitedMessage)}
	case providertest.Unavailable, providertest.Overloaded:
		return providertest.Reply{Status: 503, Body: googletest.ErrorBody(503, "UNAVAILABLE", googletest.UnavailableMessage)}
	case providertest.Unauthorized:
		return providertest.Reply{Status: 401, Body: googletest.ErrorBody(401, "UNAUTHENTICATED", googletest.UnauthenticatedMessage)}
	case providertest.Internal:
		return providertest.Reply{Status: 500, Body: googletest.InternalBody(500)}
	case providertest.Forbidden:
		return providertest.Reply{Status: 403, Body: googletest.ErrorBody(403, "PERMISSION_DENIED", googletest.PermissionDeniedMessage)}
	case providertest.NotFound:
		return providertest.Reply{Status: 404, Body: googletest.ErrorBody(404, "NOT_FOUND", googletest.NotFoundMessage)}
	case providertest.BadGateway:
		return providertest.Reply{Status: 502, Body: googletest.InternalBody(502)}
	}
	panic("unknown error kind")
}

func decode(t testing.TB, body []byte) googletest.Body {
	t.Helper()
	b, err := googletest.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func harness() providertest.Harness {
	return providertest.Harness{
		Provider: google.ProviderName,
		NewModel: func(t testing.TB, baseURL string, timeouts providertest.Timeouts) keel.Model {
			return newModelWith(t, baseURL, timeouts)
		},
		Text:       func(text string) providertest.Reply { return jsonReply(googletest.TextBody(text)) },
		StreamText: func(text string) providertest.Reply { return sseReply(googletest.StreamTextBody(text)) },
		ToolCall: func(id, name, args string) providertest.Reply {
			return jsonReply(googletest.ToolCallBody(id, name, args))
		},
		StreamToolCall: func(id, name, args string) providertest.Reply {
			return sseReply(googletest.StreamToolCallBody(id, name, args))
		},
		Error: errorReply,
		ErrorCodes: map[providertest.ErrorKind]string{
			providertest.BadRequest:   "INVALID_ARGUMENT",
			providertest.FileRejected: "INVALID_ARGUMENT",
			providertest.RateLimited:  "RESOURCE_EXHAUSTED",
			providertest.Unavailable:  "UNAVAILABLE",
			providertest.Overloaded:   "UNAVAILABLE",
			providertest.Unauthorized: "UNAUTHENTICATED",
			providertest.Internal:     "INTERNAL",
			providertest.Forbidden:    "PERMISSION_DENIED",
			providertest.NotFound:     "NOT_FOUND",
			providertest.BadGateway:   "INTERNAL",
		},
		RefusedMediaType: providertest.XLSX,
		StreamError: func() (providertest.Reply, int, string) {
			return sseReply(googletest.StreamErrorBody(503, "UNAVAILABLE", googletest.UnavailableMessage)), 503, "UNAVAILABLE"
		},
		IsSDKError: func(err error) bool {
			var apiErr genai.APIError
			return errors.As(err, &apiErr)
		},
		SentFiles: func(t testing.TB, body []byte) []providertest.SentFile {
			files, err := decode(t, body).Files()
			if err != nil {
				t.Fatal(err)
			}
			return files
		},
		SentText:       func(t testing.TB, body []byte) []string { return decode(t, body).UserTexts() },
		RefusesUpFront: map[string]string{},
		GeneratePath:   "/v1beta/models/" + testModel + ":generateContent",
		StreamPath:     "/v1beta/models/" + testModel + ":streamGenerateContent",
	}
}

func TestConformance(t *testing.T) {
	providertest.Run(t, harness())
}
