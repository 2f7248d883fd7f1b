package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/inline"
	"github.com/keel-go/keel/provider/internal/refusal"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// errorBody is OpenAI's error object, in a body or a stream event.
type errorBody struct {
	Error *struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	} `json:"error"`
	// Responses API stream events, and some compatible servers (vLLM,
	// Mistral), carry the fields at the top level.
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
}

func rawString(r json.RawMessage) string {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	if len(r) == 0 || string(r) == "null" {
		return ""
	}
	return string(r)
}

// parseErrorBody reads type, code and message from an error body.
func parseErrorBody(body string) (typ, code, msg string) {
	var b errorBody
	if json.Unmarshal([]byte(body), &b) != nil {
		return "", "", ""
	}
	if b.Error != nil {
		return b.Error.Type, rawString(b.Error.Code), b.Error.Message
	}
	return b.Type, rawString(b.Code), b.Message
}

// toError turns any failure of a call into keel's error types. It is the
// only place that reads OpenAI's error bodies.
func (m *Model) toError(ctx context.Context, x *exchange.Exchange, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var ufe *keel.UnsupportedFunctionalityError
	var ae *keel.APICallError
	if errors.As(err, &ufe) || errors.As(err, &ae) || errors.Is(err, inline.ErrBody) {
		return err
	}
	if broken := x.BrokenError(m.provider, ""); broken != nil {
		return broken
	}
	rec := x.Record()
	var se *sdk.Error
	if errors.As(err, &se) {
		url, header := rec.URL, rec.Header
		if se.Request != nil && url == "" {
			url = se.Request.URL.String()
		}
		if se.Response != nil && header == nil {
			header = se.Response.Header
		}
		typ, code, msg := se.Type, se.Code, se.Message
		if msg == "" {
			typ, code, msg = parseErrorBody(string(rec.Body))
		}
		return m.apiError(url, se.StatusCode, header, string(rec.Body), typ, code, msg, err)
	}
	if rec.Status >= 400 {
		// An error status whose body the SDK could not parse (an HTML page
		// from a proxy, say): the exchange still has everything.
		typ, code, msg := parseErrorBody(string(rec.Body))
		return m.apiError(rec.URL, rec.Status, rec.Header, string(rec.Body), typ, code, msg, err)
	}
	var stream *ssestream.StreamError
	if errors.As(err, &stream) {
		return m.streamError(rec.URL, string(stream.Event.Data))
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return fmt.Errorf("openai: decode response: %w", err)
	}
	// No answer: the connection could not be made.
	return &keel.APICallError{Provider: m.provider, URL: rec.URL, Message: err.Error(), Retryable: true, Cause: err}
}

// apiError builds the error of an error answer: an HTTP error status, or
// an error event inside a stream with the status it implies (and no
// headers).
func (m *Model) apiError(url string, status int, header http.Header, body, typ, code, msg string, cause error) *keel.APICallError {
	if msg == "" && refusal.IsHTML(header.Get("Content-Type"), body) {
		// A proxy's error page: its title says what happened; the page
		// itself stays in Body, never in the message shown or kept.
		msg = cmp.Or(refusal.HTMLTitle(body), http.StatusText(status))
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	code = cmp.Or(code, typ)
	f := classify(status, code, msg)
	return &keel.APICallError{
		Provider: m.provider, URL: url, StatusCode: status, Header: header, Body: body,
		Type: typ, Code: code, Message: msg,
		Fault: f.Kind, MediaType: f.MediaType, MediaClass: f.Class, Limit: f.Limit,
		// A file the server does not take is refused again however often
		// it is sent, even when the server answers 500 (llama.cpp, Ollama).
		Retryable: f.Kind != keel.FaultFileType && retryable(status, header, msg), Cause: cause,
	}
}

// retryable is the Retryable of an error answer: by its status and
// headers, or when OpenAI's message says the request can be retried, as
// it does for failures on its side ("... You can retry your request, or
// contact us ..."), unless the provider's x-should-retry says otherwise.
func retryable(status int, header http.Header, msg string) bool {
	if keel.IsRetryableStatus(status, header) {
		return true
	}
	return !strings.EqualFold(strings.TrimSpace(header.Get("X-Should-Retry")), "false") &&
		strings.Contains(strings.ToLower(msg), "you can retry your request")
}

// streamError is an error event inside a stream that opened with 200,
// given the status its type or code implies.
func (m *Model) streamError(url, data string) *keel.APICallError {
	typ, code, msg := parseErrorBody(data)
	if msg == "" {
		msg = "error event in stream"
	}
	return m.apiError(url, impliedStatus(typ, code), nil, data, typ, code, msg, nil)
}

// cutShort is the error of a stream that ended, without an error, before
// the event the API ends every stream with: the connection was cut, or
// the server does not stream, and the same request may succeed.
func (m *Model) cutShort(c *call, what string) *keel.APICallError {
	return &keel.APICallError{Provider: m.provider, URL: c.x.Record().URL, Message: what, Retryable: true,
		Cause: fmt.Errorf("openai: %s: %w", what, io.ErrUnexpectedEOF)}
}

// impliedStatus maps an in-stream error's type or code to the HTTP status
// the same error has when the request fails outright.
func impliedStatus(typ, code string) int {
	s := strings.ToLower(typ + " " + code)
	switch {
	case strings.Contains(s, "rate_limit"), strings.Contains(s, "insufficient_quota"):
		return http.StatusTooManyRequests
	case strings.Contains(s, "overloaded"), strings.Contains(s, "unavailable"):
		return http.StatusServiceUnavailable
	case strings.Contains(s, "timeout"):
		return http.StatusGatewayTimeout
	case strings.Contains(s, "invalid_api_key"), strings.Contains(s, "authentication"):
		return http.StatusUnauthorized
	case strings.Contains(s, "permission"), strings.Contains(s, "forbidden"):
		return http.StatusForbidden
	case strings.Contains(s, "not_found"):
		return http.StatusNotFound
	case strings.Contains(s, "invalid"):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
