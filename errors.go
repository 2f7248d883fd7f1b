package keel

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// UnsupportedFunctionalityError reports that a model adapter refused a
// request before sending it, because the request holds something the
// provider cannot take. For a file, Functionality names its media type, for
// example "file part media type application/zip" or
// "media type: application/zip".
type UnsupportedFunctionalityError struct {
	Functionality string
	// MediaType is the media type of the refused file as the request gave
	// it: the part's MediaType unchanged but for surrounding space, or,
	// when the part names none, the type its data: URL names, or
	// "application/octet-stream" when neither names one. Compare it with
	// [NormalizeMediaType]. An adapter sets it when it refuses a file
	// because of its media type, so that any file of that type would be
	// refused alike; it is empty when the refusal is of something else:
	// a file's source (a PDF by URL), its place (a file in an assistant
	// message), or no file at all.
	MediaType string
}

// Error returns "'<functionality>' functionality not supported.", the text
// the reference framework uses.
func (e *UnsupportedFunctionalityError) Error() string {
	return "'" + e.Functionality + "' functionality not supported."
}

// APICallError reports that a provider answered a call with an error
// status, or could not be reached (StatusCode 0). Adapters build it in one
// place from the provider's error body and set the fields they know;
// everyone else reads its fields, never its text.
type APICallError struct {
	// Provider names the provider ("openai", "anthropic", "google").
	Provider string
	// URL is the request's URL.
	URL string
	// StatusCode is the HTTP status; 0 when no response arrived. An error
	// inside a stream that opened with 200 carries the status the same
	// error has when a request fails outright (Anthropic's
	// overloaded_error: 529), and a Gemini answer that finished with
	// MALFORMED_FUNCTION_CALL keeps the 200 it came with.
	StatusCode int
	// Header holds the response's headers (Retry-After, x-should-retry, ...).
	Header http.Header
	// Body is the raw response body (for an error inside a stream, the
	// event's data).
	Body string
	// Type is the provider's class of error, as its body names it:
	// OpenAI's and Anthropic's error type ("invalid_request_error",
	// "overloaded_error"), Gemini's status ("INVALID_ARGUMENT").
	Type string
	// Code is the provider's most specific machine-readable name for the
	// error: OpenAI's error code ("rate_limit_exceeded",
	// "invalid_api_key"), else its type; Anthropic's error_code, else its
	// type; Gemini's ErrorInfo reason ("API_KEY_INVALID"), else its status.
	// Empty when the answer names nothing (an HTML page from a proxy, a
	// connection that failed).
	Code string
	// Message is the provider's own message, parsed from the body; the
	// status's text ("Bad Gateway") when the body has none.
	Message string
	// Fault is what the answer says is wrong with the request, as far as
	// its adapter can tell: a file's type ([FaultFileType]), a size or
	// page limit ([FaultFileSize], [FaultFilePages]), something no file
	// causes ([FaultNotFile]: a bad key, a quota, an unknown model), or
	// nothing keel can tell ([FaultUnknown], as for Gemini's 500 INTERNAL).
	Fault Fault
	// MediaType is the media type the provider's answer names as the one
	// it cannot read, as it names it (Gemini's 400 "Unsupported MIME type:
	// <type>", OpenAI's "... unsupported MIME type '<type>'", Mistral's
	// "Invalid document type. <type> is not supported."), or the type of
	// the part the answer points at (Anthropic's
	// "messages.0.content.1.image.source.base64.media_type: Input should
	// be ..."). For a size or page limit, the type of the file the answer
	// points at, if it points at one. Empty when the answer names no type.
	MediaType string
	// MediaClass is the class of files the answer refuses when it names a
	// kind of input rather than a type: "image/*" for "image input",
	// "image_url" or "invalid_image_format", "audio/*" for audio input.
	// Match it with [MatchMediaClass]. Empty when it names none.
	MediaClass string
	// Limit is the limit the answer states for [FaultFileSize] (bytes) or
	// [FaultFilePages] (pages); 0 when it states none.
	Limit int64
	// Retryable reports that sending the same request again may succeed.
	// Adapters set it from the status and headers ([IsRetryableStatus]),
	// and from what the provider's body says (an error event inside a
	// stream, a message saying the request can be retried); a connection
	// that failed, broke while the answer was read, or stayed silent
	// longer than allowed (see [ErrIdleTimeout]) is retryable.
	Retryable bool
	// RetryDelay is the wait the provider asked for in the error's body
	// rather than in a header (Gemini's google.rpc.RetryInfo); 0 when it
	// asked for none there.
	RetryDelay time.Duration
	// Cause is the SDK's error, reachable with errors.As; for a connection
	// that broke or stayed silent, the error that says so (a reset
	// connection's syscall.ECONNRESET, io.ErrUnexpectedEOF for an answer
	// cut short, [ErrIdleTimeout]).
	Cause error
}

// Fault is what a provider's error answer says is wrong with a request,
// as its adapter reads it (see [APICallError].Fault). Callers that decide
// whether a file is to blame read this field, never the answer's text.
type Fault string

// The values of [Fault].
const (
	// FaultUnknown: the answer says nothing keel can tell about the
	// request's files, or nothing at all.
	FaultUnknown Fault = ""
	// FaultFileType: the provider does not take some of the request's
	// files: those of [APICallError].MediaType, or of its MediaClass.
	// Sending the same request again fails the same way, whatever its
	// status (llama.cpp answers 500), so it is never retryable.
	FaultFileType Fault = "file-type"
	// FaultFileSize: a file, or the request with its files, is over a
	// size limit ([APICallError].Limit bytes, when stated).
	FaultFileSize Fault = "file-size"
	// FaultFilePages: a document has more pages than the provider takes
	// ([APICallError].Limit pages, when stated).
	FaultFilePages Fault = "file-pages"
	// FaultNotFile: the answer is about something no file causes: a bad
	// key, a quota, an unknown model. Taking files out would not help.
	FaultNotFile Fault = "not-a-file"
)

// BlamesFiles reports whether the fault is one of the request's files:
// their type, their size or their pages.
func (f Fault) BlamesFiles() bool {
	return f == FaultFileType || f == FaultFileSize || f == FaultFilePages
}

// ErrIdleTimeout is the cause (errors.Is) of the retryable [APICallError],
// with StatusCode 0, that a model call ends with when the provider stays
// silent for longer than its adapter allows: once an answer has started,
// no byte for the idle timeout (60 s by default); before its first byte,
// nothing for the first-byte timeout (10 minutes by default), since a
// model may think for minutes before it answers. Each adapter's options
// set both.
var ErrIdleTimeout = errors.New("idle timeout")

// Error describes the failure with the provider's own message.
func (e *APICallError) Error() string {
	var b strings.Builder
	b.WriteString(cmp.Or(e.Provider, "model"))
	if e.StatusCode == 0 {
		b.WriteString(": API call failed")
	} else {
		fmt.Fprintf(&b, ": API call failed with status %d", e.StatusCode)
	}
	switch {
	case e.Message != "":
		b.WriteString(": ")
		b.WriteString(e.Message)
	case e.Cause != nil:
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	return b.String()
}

// Unwrap returns the SDK's error.
func (e *APICallError) Unwrap() error { return e.Cause }

// IsRetryableStatus gives the retryable flag of an [APICallError] for a
// status and the response's headers: 408, 409, 429 and 5xx are retryable,
// and so is no status at all (a connection failure); "x-should-retry: true"
// makes any status retryable and "x-should-retry: false" wins over all.
func IsRetryableStatus(status int, h http.Header) bool {
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		return true
	case "false":
		return false
	}
	return status == 0 || status == 408 || status == 409 || status == 429 || status >= 500
}

// RetryAfter returns how long the provider asked to wait, from the
// Retry-After-Ms header, else Retry-After (seconds or an HTTP date), else
// the body's [APICallError.RetryDelay], and whether it asked at all.
func (e *APICallError) RetryAfter() (time.Duration, bool) {
	if d, ok := RetryAfter(e.Header, time.Now()); ok {
		return d, true
	}
	if e.RetryDelay > 0 {
		return e.RetryDelay, true
	}
	return 0, false
}

// RetryAfter reads Retry-After-Ms, then Retry-After (seconds or an HTTP
// date, relative to now) from h.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return floatDuration(ms, time.Millisecond), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return floatDuration(s, time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// floatDuration is v units, at most the longest time.Duration: a
// conversion past it (Retry-After: 1e300, or Inf) would wrap to a
// negative wait.
func floatDuration(v float64, unit time.Duration) time.Duration {
	if d := v * float64(unit); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}
