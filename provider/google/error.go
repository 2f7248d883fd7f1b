package google

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/internal/refusal"
	"google.golang.org/genai"
)

// FinishMalformedFunctionCall is Gemini's finish reason for a function
// call it could not produce. A response that ends so without any tool call
// is returned as an [*keel.APICallError] with this Code, so keel's
// stream-error retry processor can try again.
const FinishMalformedFunctionCall = "MALFORMED_FUNCTION_CALL"

// callError turns err, the SDK's error for call c, into keel's errors: the
// context's error as is, an [*keel.APICallError] for an error answer or a
// failed connection, and err wrapped for anything that happened before a
// request went out.
func callError(ctx context.Context, op string, c *call, err error) error {
	// Only the caller's own context makes a context error: a timeout of
	// the HTTP client is a failed connection, worth another try.
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if broken := c.x.BrokenError(ProviderName, ""); broken != nil {
		// The SDK reports what it made of the bytes it got (a JSON error
		// for half an event); the cause says what happened.
		return broken
	}
	rec := c.x.Record()
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return fromAPIError(rec, apiErr, err)
	}
	if !rec.Sent {
		return fmt.Errorf("google: %s: %w", op, err)
	}
	// The request went out and no answer came back: the connection failed.
	return &keel.APICallError{
		Provider:  ProviderName,
		URL:       rec.URL,
		Header:    rec.Header,
		Retryable: keel.IsRetryableStatus(0, rec.Header),
		Cause:     err,
	}
}

// fromAPIError builds the error of an error answer: an HTTP error status
// (status ≥ 400, with the raw body the exchange kept), or an error chunk
// inside a stream that opened with 200, whose status is the chunk's code.
func fromAPIError(rec exchange.Record, apiErr genai.APIError, cause error) *keel.APICallError {
	status, header, raw := rec.Status, rec.Header, string(rec.Body)
	if status < 400 {
		status = apiErr.Code
		b, _ := json.Marshal(map[string]genai.APIError{"error": apiErr})
		raw = string(b)
	}
	code := apiErr.Status
	if reason := errorReason(apiErr.Details); reason != "" {
		code = reason
	}
	msg := apiErr.Message
	if refusal.IsHTML(header.Get("Content-Type"), msg) || refusal.IsHTML("", raw) && (msg == "" || strings.Contains(msg, "<")) {
		// A proxy's error page, which the SDK takes whole as the message:
		// its title says what happened.
		msg = cmp.Or(refusal.HTMLTitle(raw), http.StatusText(status))
	}
	f := classify(status, apiErr.Status, code, msg)
	return &keel.APICallError{
		Provider:   ProviderName,
		URL:        rec.URL,
		StatusCode: status,
		Header:     header,
		Body:       raw,
		Type:       apiErr.Status,
		Code:       code,
		Message:    msg,
		Fault:      f.Kind,
		MediaType:  f.MediaType,
		MediaClass: f.Class,
		Limit:      f.Limit,
		Retryable:  f.Kind != keel.FaultFileType && keel.IsRetryableStatus(status, header),
		RetryDelay: retryDelay(apiErr.Details),
		Cause:      cause,
	}
}

// unsupportedMIME starts the message of Gemini's 400 INVALID_ARGUMENT for
// a file type it does not read; the type follows.
const unsupportedMIME = "Unsupported MIME type: "

// notAFileReasons are the ErrorInfo reasons (and statuses) no file
// causes: a bad or expired key, a quota, a region the API does not serve.
var notAFileReasons = map[string]bool{
	"API_KEY_INVALID": true, "API_KEY_EXPIRED": true, "API_KEY_SERVICE_BLOCKED": true, "ACCESS_TOKEN_EXPIRED": true,
	"SERVICE_DISABLED": true, "CONSUMER_INVALID": true, "RATE_LIMIT_EXCEEDED": true, "RESOURCE_EXHAUSTED": true,
	"PERMISSION_DENIED": true, "UNAUTHENTICATED": true, "NOT_FOUND": true, "BILLING_DISABLED": true,
}

// classify reads a Gemini error answer: its status, its Google status
// ("INVALID_ARGUMENT"), its most specific code (the ErrorInfo reason when
// it has one) and its message.
func classify(status int, googleStatus, code, msg string) refusal.Fault {
	l := refusal.Lower(msg)
	switch {
	case status >= 400 && status < 500 && strings.Contains(l, "file") && (strings.Contains(l, "may not exist") || strings.Contains(l, "does not exist")):
		// A file of the Files API the request named that expired or was
		// deleted: 403 "You do not have permission to access the File abc
		// or it may not exist."
		return refusal.Fault{Kind: keel.FaultFileGone}
	case status == 401 || status == 403 || status == 404 || status == 429 || notAFileReasons[code] || notAFileReasons[googleStatus]:
		return refusal.Fault{Kind: keel.FaultNotFile}
	case strings.Contains(l, "api key") || strings.Contains(l, "location is not supported"):
		// "API key not valid. Please pass a valid API key." (400), "User
		// location is not supported for the API use." (400)
		return refusal.Fault{Kind: keel.FaultNotFile}
	}
	if mt := refusedMediaType(msg); mt != "" {
		return refusal.Fault{Kind: keel.FaultFileType, MediaType: mt}
	}
	switch {
	case strings.Contains(l, "payload size exceeds") || strings.Contains(l, "request too large") || status == 413:
		// "Request payload size exceeds the limit: 20971520 bytes."
		return refusal.Fault{Kind: keel.FaultFileSize, Limit: refusal.SizeLimit(l)}
	case refusal.SaysPages(l):
		return refusal.Fault{Kind: keel.FaultFilePages, MediaType: "application/pdf", Limit: refusal.PageLimit(l)}
	case strings.Contains(l, "document has no pages") || strings.Contains(l, "unable to process input document"):
		return refusal.Fault{Kind: keel.FaultFileType, MediaType: "application/pdf"}
	case strings.Contains(l, "unable to process input image") || strings.Contains(l, "provided image is not valid"):
		return refusal.Fault{Kind: keel.FaultFileType, Class: "image/*"}
	}
	return refusal.Fault{}
}

// refusedMediaType is the media type a Gemini error message names as one
// it does not read, or "".
func refusedMediaType(msg string) string {
	_, rest, ok := strings.Cut(msg, unsupportedMIME)
	if !ok {
		return ""
	}
	mt, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	mt = strings.TrimRight(mt, ".,;")
	if !strings.Contains(mt, "/") {
		return ""
	}
	return mt
}

// retryDelay returns the wait of the google.rpc.RetryInfo detail, which
// Gemini's 429 RESOURCE_EXHAUSTED carries instead of a Retry-After
// header: a protobuf Duration in JSON, such as "38s" or "12.771204034s".
// It is 0 when there is none or it cannot be read.
func retryDelay(details []map[string]any) time.Duration {
	for _, d := range details {
		if t, _ := d["@type"].(string); t != "type.googleapis.com/google.rpc.RetryInfo" {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if !strings.HasSuffix(s, "s") {
			return 0
		}
		delay, err := time.ParseDuration(s)
		if err != nil || delay < 0 {
			return 0
		}
		return delay
	}
	return 0
}

// errorReason returns the reason of the google.rpc.ErrorInfo detail, such
// as "API_KEY_INVALID", which says more than the status.
func errorReason(details []map[string]any) string {
	for _, d := range details {
		if t, _ := d["@type"].(string); t == "type.googleapis.com/google.rpc.ErrorInfo" {
			if r, _ := d["reason"].(string); r != "" {
				return r
			}
		}
	}
	return ""
}

// malformedCallError is the error of an answer that finished with
// MALFORMED_FUNCTION_CALL and gave no tool call: the HTTP call succeeded,
// so StatusCode is 200, and the same request may well succeed again.
func malformedCallError(c *call, finishMessage string) *keel.APICallError {
	rec := c.x.Record()
	msg := "the model produced a malformed function call"
	if finishMessage != "" {
		msg += ": " + finishMessage
	}
	body, _ := json.Marshal(map[string]string{"finishReason": FinishMalformedFunctionCall, "finishMessage": finishMessage})
	return &keel.APICallError{
		Provider:   ProviderName,
		URL:        rec.URL,
		StatusCode: rec.Status,
		Header:     rec.Header,
		Body:       string(body),
		Type:       FinishMalformedFunctionCall,
		Code:       FinishMalformedFunctionCall,
		Message:    msg,
		Retryable:  true,
	}
}
