package keel

import (
	"fmt"
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
}

// Error returns "'<functionality>' functionality not supported.", the text
// the reference framework uses.
func (e *UnsupportedFunctionalityError) Error() string {
	return "'" + e.Functionality + "' functionality not supported."
}

// APICallError reports that a provider answered a call with an error
// status, or could not be reached (StatusCode 0). Adapters build it in one
// place from the provider's error body; everyone else reads its fields.
type APICallError struct {
	// Provider names the provider ("openai", "anthropic", "google").
	Provider string
	// URL is the request's URL.
	URL string
	// StatusCode is the HTTP status; 0 when no response arrived.
	StatusCode int
	// Header holds the response's headers (Retry-After, x-should-retry, ...).
	Header http.Header
	// Body is the raw response body.
	Body string
	// Type, Code and Message are parsed from the body when it has them.
	Type, Code, Message string
	// Retryable reports that sending the same request again may succeed.
	// [IsRetryableStatus] gives the usual value.
	Retryable bool
	// RetryDelay is the wait the provider asked for in the error's body
	// rather than in a header (Gemini's google.rpc.RetryInfo); 0 when it
	// asked for none there.
	RetryDelay time.Duration
	// Cause is the SDK's error, reachable with errors.As.
	Cause error
}

// Error describes the failure with the provider's own message.
func (e *APICallError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	if e.Provider == "" {
		b.WriteString("model")
	}
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
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
