package processor

import (
	"cmp"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/keel-go/keel"
)

// StreamErrorRetryID is the ID of [StreamErrorRetry].
const StreamErrorRetryID = "stream-error-retry-processor"

// Defaults of [StreamErrorRetry].
const (
	// DefaultStreamRetries is the retries of a [StreamErrorRetry] whose
	// MaxRetries option is 0.
	DefaultStreamRetries = 1
	// DefaultMaxRetryAfter caps how long a provider's Retry-After may make
	// a retry wait, when the MaxRetryAfter option is 0.
	DefaultMaxRetryAfter = 30 * time.Second
)

// Names of the built-in matchers, in the order they are tried after the
// caller's own. They key the per-run retry counters.
const (
	matcherConnReset   = "connection-reset"
	matcherMalformedFC = "malformed-function-call"
	matcherTransient   = "transient"
	matcherBadRequest  = "bad-request"
	matcherUnknown     = "unknown"
)

// transientCodes are substrings of OpenAI-style error codes and types that
// say the same request may succeed later.
var transientCodes = []string{
	"rate_limit", "server_error", "internal_error", "timeout",
	"temporarily_unavailable", "service_unavailable", "overloaded",
}

// authCodes are substrings of error codes and types that say the caller
// is not allowed: sending the request again cannot help.
var authCodes = []string{
	"access_denied", "authentication_error", "forbidden", "invalid_api_key", "permission_denied",
}

// StreamErrorRetryOptions configures [NewStreamErrorRetry]. The zero value
// retries transient errors once, without delay beyond what the provider
// asks for (capped at 30 s).
type StreamErrorRetryOptions struct {
	// MaxRetries is how many times one run retries a transient error (and
	// an unknown one, with RetryUnknown). 0 means [DefaultStreamRetries];
	// a negative value turns these retries off.
	MaxRetries int
	// Delay is the wait before each retry.
	Delay time.Duration
	// DelayFunc, when set, gives the wait before retry number attempt
	// (1-based) instead of Delay.
	DelayFunc func(attempt int) time.Duration
	// RetryUnknown retries errors that no matcher recognises and that are
	// not known to be final: an [keel.APICallError] that is not retryable
	// and an [keel.UnsupportedFunctionalityError] are final.
	RetryUnknown bool
	// RetryBadRequest retries a 400 answer once. Off by default: a 400
	// usually means the request itself is wrong.
	RetryBadRequest bool
	// MaxRetryAfter caps the wait a provider's Retry-After-Ms or
	// Retry-After header, or its error body (keel.APICallError.RetryDelay),
	// may ask for. 0 means [DefaultMaxRetryAfter].
	MaxRetryAfter time.Duration
	// Matchers are the caller's own matchers, tried before the built-in
	// ones in order; the first that matches decides.
	Matchers []RetryMatcher
	// RetryAfterOutput lets the processor retry a streamed call that had
	// already sent output to the caller. Off by default: the client would
	// see the partial output of the failed attempt and then the new one.
	RetryAfterOutput bool
}

// RetryMatcher recognises one kind of error and says how often and after
// how long it is retried. Its retries are counted per run, apart from
// every other matcher's.
type RetryMatcher struct {
	// Name appears in logs. Each matcher has its own retry counter,
	// whatever its name.
	Name string
	// Match reports whether err is of this kind. It is called on the error
	// and on each of its causes.
	Match func(err error) bool
	// MaxRetries is how many times a run retries errors of this kind; 0
	// means the processor's MaxRetries, and a negative value never retries
	// them (which keeps them from the matchers after this one).
	MaxRetries int
	// Delay, when set, gives the wait before retry number attempt
	// (1-based); otherwise the processor's delay applies.
	Delay func(attempt int) time.Duration
}

// StreamErrorRetry is the default error processor that sends the same
// request again, files included, when a model call failed for a reason
// that may pass: a retryable [keel.APICallError] (408, 409, 429, 5xx, or
// as the provider's x-should-retry says), an OpenAI-style error code such
// as rate_limit_exceeded or server_error, a message saying "you can retry
// your request", a reset connection (2 retries, backoff 1 s, 2 s, ... up
// to 30 s), Gemini's MALFORMED_FUNCTION_CALL (2 retries, backoff 0.5 s,
// 1 s, ... up to 4 s), and, when asked, a 400 (once) or an unknown error.
// Matches are looked for at every level of the error's cause chain.
//
// Errors are read by field: a [keel.APICallError]'s Retryable, StatusCode,
// Code and Type, which keel's adapters set from what the provider said,
// and the identity of its causes (syscall.ECONNRESET, io.ErrUnexpectedEOF
// for a connection reset or an answer cut short). The text of an error
// ("you can retry your request", "connection reset by peer",
// "MALFORMED_FUNCTION_CALL" in its message) is read only when its chain
// holds no APICallError: an error from a model outside keel's adapters.
//
// It never retries a 401 or 403, an auth error code (access_denied,
// authentication_error, forbidden, invalid_api_key, permission_denied),
// nor the context's cancellation or deadline; caller matchers cannot
// override that.
//
// The wait before a retry is the larger of the configured delay and the
// wait the provider asked for (Retry-After-Ms, Retry-After, or the error
// body's RetryDelay), the latter capped by MaxRetryAfter. Retries are
// counted per run and per matcher, in the run's state; one value serves
// any number of concurrent runs.
type StreamErrorRetry struct {
	opts     StreamErrorRetryOptions
	builtins []builtin
}

// builtin is one of the processor's own matchers. Its Match reads fields
// and error identities; text, when set, reads an error's message, and is
// tried only for errors whose chain holds no keel.APICallError.
type builtin struct {
	RetryMatcher
	text func(error) bool
}

// NewStreamErrorRetry returns a stream-error retry processor with opts.
func NewStreamErrorRetry(opts StreamErrorRetryOptions) *StreamErrorRetry {
	switch {
	case opts.MaxRetries == 0:
		opts.MaxRetries = DefaultStreamRetries
	case opts.MaxRetries < 0:
		opts.MaxRetries = 0
	}
	if opts.MaxRetryAfter <= 0 {
		opts.MaxRetryAfter = DefaultMaxRetryAfter
	}
	opts.Matchers = append([]RetryMatcher(nil), opts.Matchers...)
	p := &StreamErrorRetry{opts: opts}
	p.builtins = []builtin{
		{RetryMatcher{Name: matcherConnReset, Match: isConnectionReset, MaxRetries: 2, Delay: backoff(time.Second, 30*time.Second)},
			saysConnectionReset},
		{RetryMatcher{Name: matcherMalformedFC, Match: isMalformedFunctionCall, MaxRetries: 2, Delay: backoff(500*time.Millisecond, 4*time.Second)},
			saysMalformedFunctionCall},
		{RetryMatcher{Name: matcherTransient, Match: isTransient}, saysRetry},
	}
	if opts.RetryBadRequest {
		p.builtins = append(p.builtins, builtin{RetryMatcher: RetryMatcher{Name: matcherBadRequest, Match: isBadRequest, MaxRetries: 1}})
	}
	return p
}

// DefaultStreamErrorRetry returns the instance every agent gets by
// default: 2 retries, 3 s apart (or longer when the provider asks).
func DefaultStreamErrorRetry() *StreamErrorRetry {
	return NewStreamErrorRetry(StreamErrorRetryOptions{MaxRetries: 2, Delay: 3 * time.Second})
}

// ID returns "stream-error-retry-processor".
func (*StreamErrorRetry) ID() string { return StreamErrorRetryID }

// RetriesAfterOutput reports the RetryAfterOutput option.
func (p *StreamErrorRetry) RetriesAfterOutput() bool { return p.opts.RetryAfterOutput }

type streamRetryState struct {
	mu     sync.Mutex
	counts map[string]int
}

// HandleAPIError asks for a retry when e.Err is matched by a matcher whose
// count for the run is still below its maximum.
func (p *StreamErrorRetry) HandleAPIError(_ context.Context, e *APIErrorEvent) (Decision, error) {
	if e == nil || e.Run == nil || e.Err == nil {
		return Decision{}, nil
	}
	if e.OutputSent && !p.opts.RetryAfterOutput {
		return Decision{}, nil
	}
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) || isAuthFailure(e.Err) || blamesFiles(e.Err) {
		return Decision{}, nil
	}
	m, counter, ok := p.match(e.Err)
	if !ok {
		return Decision{}, nil
	}
	limit := cmp.Or(m.MaxRetries, p.opts.MaxRetries)
	st := StateOf[streamRetryState](e.Run, p)
	st.mu.Lock()
	if st.counts == nil {
		st.counts = make(map[string]int)
	}
	if st.counts[counter] >= limit {
		st.mu.Unlock()
		return Decision{}, nil
	}
	st.counts[counter]++
	attempt := st.counts[counter]
	st.mu.Unlock()

	delay := p.configuredDelay(m, attempt)
	if api, ok := findCause[*keel.APICallError](e.Err, retryErrorDepth); ok {
		if after, asked := api.RetryAfter(); asked {
			delay = max(delay, min(after, p.opts.MaxRetryAfter))
		}
	}
	if l := e.Run.Logger; l != nil {
		l.Info("retrying model call", "processor", StreamErrorRetryID, "matcher", m.Name,
			"attempt", attempt, "maxRetries", limit, "delay", delay, "err", e.Err)
	}
	return Decision{Retry: true, Delay: delay}, nil
}

// match returns the first matcher, caller's first, that recognises err at
// some level of its cause chain, and the key of its retry counter. Caller
// matchers are counted by position, so that two with one name (or none)
// never share a count.
func (p *StreamErrorRetry) match(err error) (RetryMatcher, string, bool) {
	for i, m := range p.opts.Matchers {
		if m.Match != nil && walkCauses(err, retryErrorDepth, m.Match) {
			return m, "caller/" + strconv.Itoa(i), true
		}
	}
	_, fromAdapter := findCause[*keel.APICallError](err, retryErrorDepth)
	for _, m := range p.builtins {
		if walkCauses(err, retryErrorDepth, m.Match) ||
			(!fromAdapter && m.text != nil && walkCauses(err, retryErrorDepth, m.text)) {
			return m.RetryMatcher, m.Name, true
		}
	}
	if p.opts.RetryUnknown && !isFinal(err) {
		return RetryMatcher{Name: matcherUnknown}, matcherUnknown, true
	}
	return RetryMatcher{}, "", false
}

func (p *StreamErrorRetry) configuredDelay(m RetryMatcher, attempt int) time.Duration {
	switch {
	case m.Delay != nil:
		return m.Delay(attempt)
	case p.opts.DelayFunc != nil:
		return p.opts.DelayFunc(attempt)
	default:
		return p.opts.Delay
	}
}

// backoff returns min(base·2^(attempt-1), limit): base before the first
// retry, doubling after.
func backoff(base, limit time.Duration) func(int) time.Duration {
	return func(attempt int) time.Duration {
		d := base
		for i := 1; i < attempt && d < limit; i++ {
			d *= 2
		}
		return min(d, limit)
	}
}

func isAuthFailure(err error) bool {
	return walkCauses(err, retryErrorDepth, func(e error) bool {
		api, ok := e.(*keel.APICallError)
		return ok && (api.StatusCode == 401 || api.StatusCode == 403 ||
			containsAny(api.Code, authCodes) || containsAny(api.Type, authCodes))
	})
}

// blamesFiles reports an answer that refuses the request's files (their
// type, size or pages): the same request is refused again, whatever its
// status, so it is never resent as it is (llama.cpp and Ollama answer
// an image to a text model with a 500).
func blamesFiles(err error) bool {
	return walkCauses(err, retryErrorDepth, func(e error) bool {
		api, ok := e.(*keel.APICallError)
		return ok && api.Fault.BlamesFiles()
	})
}

// isTransient matches an APICallError marked retryable, or whose code or
// type names a passing failure.
func isTransient(err error) bool {
	api, ok := err.(*keel.APICallError)
	return ok && (api.Retryable || containsAny(api.Code, transientCodes) || containsAny(api.Type, transientCodes))
}

// saysRetry matches a message asking for the request again, as OpenAI's
// do for failures on its side.
func saysRetry(err error) bool {
	return strings.Contains(strings.ToLower(err.Error()), "you can retry your request")
}

// isConnectionReset matches a connection the peer reset, or an answer
// that ended before it was whole.
func isConnectionReset(err error) bool {
	return err == syscall.ECONNRESET || err == io.ErrUnexpectedEOF
}

func saysConnectionReset(err error) bool {
	return strings.Contains(strings.ToLower(err.Error()), "connection reset by peer")
}

// malformedFunctionCall is Gemini's finish reason for a function call it
// could not produce, which its adapter puts in the error's Code.
const malformedFunctionCall = "MALFORMED_FUNCTION_CALL"

func isMalformedFunctionCall(err error) bool {
	api, ok := err.(*keel.APICallError)
	return ok && (api.Code == malformedFunctionCall || api.Type == malformedFunctionCall)
}

func saysMalformedFunctionCall(err error) bool {
	return strings.Contains(err.Error(), malformedFunctionCall)
}

func isBadRequest(err error) bool {
	api, ok := err.(*keel.APICallError)
	return ok && api.StatusCode == 400
}

// isFinal reports errors known to fail again whatever the wait.
func isFinal(err error) bool {
	if _, ok := findCause[*keel.UnsupportedFunctionalityError](err, retryErrorDepth); ok {
		return true
	}
	api, ok := findCause[*keel.APICallError](err, retryErrorDepth)
	return ok && !api.Retryable
}

func containsAny(s string, subs []string) bool {
	s = strings.ToLower(s)
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}
