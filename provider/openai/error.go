package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/inline"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// maxErrorBody bounds how much of an error response is kept.
const maxErrorBody = 1 << 20

// exchange records the HTTP side of one call, so that an error keeps the
// URL, headers and raw body whatever the SDK made of them (it parses only
// JSON bodies with an "error" object).
type exchange struct {
	mu     sync.Mutex
	url    string
	status int
	header http.Header
	body   string
}

func (x *exchange) option() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		x.mu.Lock()
		x.url = req.URL.String()
		x.mu.Unlock()
		res, err := next(req)
		if err != nil || res.StatusCode < 400 {
			return res, err
		}
		b, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(b))
		x.mu.Lock()
		x.status, x.header, x.body = res.StatusCode, res.Header, string(b)
		x.mu.Unlock()
		return res, nil
	})
}

// URL is the URL of the request, once it was sent.
func (x *exchange) URL() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.url
}

// errorBody is OpenAI's error object, in a body or a stream event.
type errorBody struct {
	Error *struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	} `json:"error"`
	// Responses API stream events carry the fields at the top level.
	Message string          `json:"message"`
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
	return "", rawString(b.Code), b.Message
}

// toError turns any failure of a call into keel's error types. It is the
// only place that reads OpenAI's error bodies.
func (m *Model) toError(ctx context.Context, x *exchange, err error) error {
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
	x.mu.Lock()
	url, status, header, body := x.url, x.status, x.header, x.body
	x.mu.Unlock()

	var se *sdk.Error
	if errors.As(err, &se) {
		out := &keel.APICallError{
			Provider: m.provider, URL: url, StatusCode: se.StatusCode, Header: header, Body: body,
			Type: se.Type, Code: se.Code, Message: se.Message, Cause: err,
		}
		if se.Request != nil && out.URL == "" {
			out.URL = se.Request.URL.String()
		}
		if se.Response != nil && out.Header == nil {
			out.Header = se.Response.Header
		}
		if out.Message == "" {
			out.Type, out.Code, out.Message = parseErrorBody(body)
		}
		if out.Message == "" {
			out.Message = http.StatusText(out.StatusCode)
		}
		out.Retryable = keel.IsRetryableStatus(out.StatusCode, out.Header)
		return out
	}
	if status >= 400 {
		// An error status whose body the SDK could not parse (an HTML page
		// from a proxy, say): the exchange still has everything.
		typ, code, msg := parseErrorBody(body)
		if msg == "" {
			msg = http.StatusText(status)
		}
		return &keel.APICallError{
			Provider: m.provider, URL: url, StatusCode: status, Header: header, Body: body,
			Type: typ, Code: code, Message: msg,
			Retryable: keel.IsRetryableStatus(status, header), Cause: err,
		}
	}
	var stream *ssestream.StreamError
	if errors.As(err, &stream) {
		return m.streamError(url, string(stream.Event.Data), err)
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return fmt.Errorf("openai: decode response: %w", err)
	}
	// No answer, or the connection broke while reading one.
	return &keel.APICallError{
		Provider: m.provider, URL: url, Message: err.Error(), Retryable: true, Cause: err,
	}
}

// streamError is an error event inside a stream that opened with 200,
// given the status its type or code implies.
func (m *Model) streamError(url, data string, cause error) *keel.APICallError {
	typ, code, msg := parseErrorBody(data)
	status := impliedStatus(typ, code)
	if msg == "" {
		msg = "error event in stream"
	}
	return &keel.APICallError{
		Provider: m.provider, URL: url, StatusCode: status, Body: data,
		Type: typ, Code: code, Message: msg,
		Retryable: keel.IsRetryableStatus(status, nil), Cause: cause,
	}
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
