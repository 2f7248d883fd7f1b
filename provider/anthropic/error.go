package anthropic

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/refusal"
)

// errStreamTruncated is the cause of the error a stream ends with when its
// body ends before message_stop: the answer was cut short.
var errStreamTruncated = fmt.Errorf("stream ended before message_stop: %w", io.ErrUnexpectedEOF)

// callError classifies an error of the SDK once, for every caller: the
// context's own error, an answer that broke off or went silent, an API
// error (HTTP status or an error event inside a stream), a connection
// failure, or anything else (a response the SDK could not decode, a
// request option it refused) wrapped with op.
func callError(ctx context.Context, op, endpoint string, c *call, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("anthropic: %s: %w", op, ctxErr)
	}
	if broken := c.x.BrokenError(ProviderName, endpoint); broken != nil {
		return broken
	}
	var sdkErr *anthropic.Error
	if errors.As(err, &sdkErr) {
		return apiCallError(sdkErr, endpoint, c.sent)
	}
	if isConnectionError(err) {
		if ue := (*url.Error)(nil); errors.As(err, &ue) && ue.URL != "" {
			endpoint = ue.URL
		}
		return &keel.APICallError{Provider: ProviderName, URL: endpoint, Retryable: true, Cause: err}
	}
	return fmt.Errorf("anthropic: %s: %w", op, err)
}

// isConnectionError reports failures to reach the API or to read its whole
// answer.
func isConnectionError(err error) bool {
	var (
		ue *url.Error
		ne net.Error
	)
	return errors.As(err, &ue) || errors.As(err, &ne) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, errStreamTruncated)
}

// apiCallError builds keel's error from the SDK's. An error event inside a
// stream arrives on a 200 response; its status is the one its type implies
// (overloaded_error is 529), so that retrying treats it like the same
// error sent as a status.
func apiCallError(e *anthropic.Error, endpoint string, sent []anthropic.MessageParam) *keel.APICallError {
	status := e.StatusCode
	if status < 400 {
		status = impliedStatus(string(e.Type()))
	}
	if e.Request != nil && e.Request.URL != nil {
		endpoint = e.Request.URL.String()
	}
	var header http.Header
	if e.Response != nil {
		header = e.Response.Header
	}
	msg := e.Message
	if msg == "" && refusal.IsHTML(header.Get("Content-Type"), e.RawJSON()) {
		msg = refusal.HTMLTitle(e.RawJSON())
	}
	msg = cmp.Or(msg, http.StatusText(status))
	typ := string(e.Type())
	f := classify(status, typ, msg, sent)
	return &keel.APICallError{
		Provider:   ProviderName,
		URL:        endpoint,
		StatusCode: status,
		Header:     header,
		Body:       e.RawJSON(),
		Type:       typ,
		Code:       cmp.Or(string(e.ErrorCode()), typ),
		Message:    msg,
		Fault:      f.Kind,
		MediaType:  f.MediaType,
		MediaClass: f.Class,
		Limit:      f.Limit,
		Retryable:  f.Kind != keel.FaultFileType && keel.IsRetryableStatus(status, header),
		Cause:      e,
	}
}

// impliedStatus is the HTTP status Anthropic documents for an error type.
// An unknown type inside a stream is a server-side failure.
func impliedStatus(errorType string) int {
	switch errorType {
	case "invalid_request_error":
		return 400
	case "authentication_error":
		return 401
	case "billing_error":
		return 402
	case "permission_error":
		return 403
	case "not_found_error":
		return 404
	case "conflict_error":
		return 409
	case "request_too_large":
		return 413
	case "rate_limit_error":
		return 429
	case "timeout_error":
		return 504
	case "overloaded_error":
		return 529
	default:
		return 500
	}
}
