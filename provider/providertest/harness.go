package providertest

import (
	"net/http"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

// The values every Text, StreamText, ToolCall and StreamToolCall reply of a
// [Harness] reports, so the suite can check the adapter parsed them.
const (
	// InputTokens is the prompt token count of a scripted answer.
	InputTokens = 11
	// OutputTokens is the answer token count of a scripted answer.
	OutputTokens = 7
	// ResponseID is the response ID of a scripted answer.
	ResponseID = "resp_keel_1"
	// ModelID is the model name a scripted answer reports.
	ModelID = "keel-test-model"
)

// ErrorKind names an error the provider answers with.
type ErrorKind int

// The errors a [Harness] must answer with, in the provider's own words.
const (
	// BadRequest is a 400 that has nothing to do with files.
	BadRequest ErrorKind = iota
	// FileRejected is the provider's 400 (Gemini: also 500/502 INTERNAL is
	// covered by Internal) for a file type it does not read.
	FileRejected
	// RateLimited is a 429 with a Retry-After header.
	RateLimited
	// Unavailable is a 503.
	Unavailable
	// Overloaded is Anthropic's 529 overloaded_error, a 503 elsewhere.
	Overloaded
	// Unauthorized is a 401 for a bad key.
	Unauthorized
	// Internal is a 500.
	Internal
	// Forbidden is a 403: the key may not use the model or the API.
	Forbidden
	// NotFound is a 404: an unknown model.
	NotFound
	// BadGateway is a 502, from the provider or a proxy in front of it.
	BadGateway
)

// ErrorKinds lists every [ErrorKind], in order.
var ErrorKinds = []ErrorKind{BadRequest, FileRejected, RateLimited, Unavailable, Overloaded, Unauthorized, Internal,
	Forbidden, NotFound, BadGateway}

// String names the kind, such as "rate-limited".
func (k ErrorKind) String() string {
	switch k {
	case BadRequest:
		return "bad-request"
	case FileRejected:
		return "file-rejected"
	case RateLimited:
		return "rate-limited"
	case Unavailable:
		return "unavailable"
	case Overloaded:
		return "overloaded"
	case Unauthorized:
		return "unauthorized"
	case Internal:
		return "internal"
	case Forbidden:
		return "forbidden"
	case NotFound:
		return "not-found"
	case BadGateway:
		return "bad-gateway"
	}
	return "unknown"
}

// SentFile is one file part as a request carried it.
type SentFile struct {
	// MediaType is the media type the request gave (for a data URL, the
	// one inside it), normalised.
	MediaType string
	// Name is the file name the request gave; "" when the wire format has
	// none for this part.
	Name string
	// Encoding says how the content travelled, in the provider's terms:
	// "data-url", "base64", "text", "url", "file-id", ...
	Encoding string
	// Data is the decoded content, when it travelled inline.
	Data []byte
	// URL is the URL or file ID, when it travelled by reference.
	URL string
}

// Harness adapts one provider adapter to the suite. Each field is one piece
// of the provider's wire protocol; the suite combines them.
//
// Text, StreamText, ToolCall and StreamToolCall answer with the usage
// [InputTokens] and [OutputTokens], the ID [ResponseID] and the model
// [ModelID]; a text answer finishes with the provider's "stop" and a tool
// call with the provider's "tool use".
type Harness struct {
	// Provider is what Model.Provider returns and APICallError.Provider
	// holds, such as "openai".
	Provider string
	// NewModel returns the adapter pointed at baseURL (a [Server]'s URL;
	// the harness adds any path prefix its SDK expects) with a dummy key
	// and the timeouts given (zero: the adapter's defaults).
	NewModel func(t testing.TB, baseURL string, timeouts Timeouts) keel.Model
	// Text is a successful non-streaming answer holding text.
	Text func(text string) Reply
	// StreamText is a successful stream answering text in at least two
	// deltas.
	StreamText func(text string) Reply
	// ToolCall is a successful non-streaming answer holding one tool call.
	ToolCall func(id, name, argsJSON string) Reply
	// StreamToolCall is a successful stream holding one tool call whose
	// arguments arrive in at least two pieces.
	StreamToolCall func(id, name, argsJSON string) Reply
	// Error is the provider's real answer for an error kind. RateLimited
	// carries a Retry-After header.
	Error func(kind ErrorKind) Reply
	// ErrorCodes maps every error kind to the Code the adapter must give
	// the APICallError of that kind's answer: "" where the answer names
	// none (an HTML page from a proxy).
	ErrorCodes map[ErrorKind]string
	// RefusedMediaType is the media type the FileRejected answer names as
	// the one the provider cannot read, which the adapter must give as
	// APICallError.MediaType; "" when that answer names none.
	RefusedMediaType string
	// StreamError, when not nil, is a stream that opens with 200 and
	// then carries an error event, the status that event implies and the
	// Code the adapter must give it.
	StreamError func() (reply Reply, status int, code string)
	// IsSDKError reports whether errors.As reaches the SDK's own error
	// type (*openai.Error, *anthropic.Error, genai.APIError) in err.
	IsSDKError func(err error) bool
	// SentFiles decodes the file parts of a request body, in order.
	SentFiles func(t testing.TB, body []byte) []SentFile
	// SentText decodes the text parts of the user messages of a request
	// body, in order.
	SentText func(t testing.TB, body []byte) []string
	// RefusesUpFront maps a media type to the exact functionality string
	// of the refusal the adapter raises before sending an inline file of
	// that type. A type missing from the map, or mapped to "", must be
	// sent.
	RefusesUpFront map[string]string
	// GeneratePath and StreamPath, when not empty, are the URL paths the
	// adapter must call.
	GeneratePath, StreamPath string
}

// Timeouts are the adapter's idle and first-byte timeouts, as the
// adapters' IdleTimeout and FirstByteTimeout options take them.
type Timeouts struct {
	Idle, FirstByte time.Duration
}

// status returns the reply's status, 200 when it has none.
func (r Reply) status() int {
	if r.Status == 0 {
		return http.StatusOK
	}
	return r.Status
}
