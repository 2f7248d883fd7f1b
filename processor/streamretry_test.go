package processor_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

func apiErr(status int, header ...string) *keel.APICallError {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return &keel.APICallError{Provider: "openai", StatusCode: status, Header: h, Retryable: keel.IsRetryableStatus(status, h)}
}

// withRetryDelay sets the wait e's body asked for, as Gemini's RetryInfo
// does.
func withRetryDelay(e *keel.APICallError, d time.Duration) *keel.APICallError {
	e.RetryDelay = d
	return e
}

// deepWrap wraps err in n layers of fmt.Errorf.
func deepWrap(err error, n int) error {
	for i := range n {
		err = fmt.Errorf("layer %d: %w", i, err)
	}
	return err
}

func decide(t *testing.T, p processor.APIErrorHandler, run *processor.Run, err error) processor.Decision {
	t.Helper()
	d, herr := p.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: err})
	if herr != nil {
		t.Fatalf("HandleAPIError(%v) error = %v; want nil", err, herr)
	}
	return d
}

func TestStreamErrorRetryMatches(t *testing.T) {
	base := processor.StreamErrorRetryOptions{Delay: time.Second}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	tests := []struct {
		name  string
		opts  processor.StreamErrorRetryOptions
		err   error
		want  bool
		delay time.Duration
	}{
		{"503", base, apiErr(503), true, time.Second},
		{"500", base, apiErr(500), true, time.Second},
		{"408", base, apiErr(408), true, time.Second},
		{"409", base, apiErr(409), true, time.Second},
		{"529 overloaded", base, apiErr(529), true, time.Second},
		{"x-should-retry false", base, apiErr(503, "X-Should-Retry", "false"), false, 0},
		{"429 retry-after longer", base, apiErr(429, "Retry-After", "5"), true, 5 * time.Second},
		{"429 retry-after shorter", processor.StreamErrorRetryOptions{Delay: 3 * time.Second}, apiErr(429, "Retry-After-Ms", "1500"), true, 3 * time.Second},
		{"retry-after-ms wins", base, apiErr(429, "Retry-After-Ms", "2500", "Retry-After", "9"), true, 2500 * time.Millisecond},
		{"retry-after capped", base, apiErr(429, "Retry-After", "120"), true, 30 * time.Second},
		{"retry delay in the body", base, withRetryDelay(apiErr(429), 5*time.Second), true, 5 * time.Second},
		{"retry delay in the body capped", base, withRetryDelay(apiErr(429), 2*time.Minute), true, 30 * time.Second},
		{"retry-after header over the body's", base, withRetryDelay(apiErr(429, "Retry-After", "3"), 9*time.Second), true, 3 * time.Second},
		{"retry-after custom cap", processor.StreamErrorRetryOptions{MaxRetryAfter: 10 * time.Second}, apiErr(429, "Retry-After", "120"), true, 10 * time.Second},
		{"code rate_limit", base, &keel.APICallError{StatusCode: 400, Code: "rate_limit_exceeded"}, true, time.Second},
		{"type server_error", base, &keel.APICallError{Type: "server_error"}, true, time.Second},
		{"type overloaded_error", base, &keel.APICallError{StatusCode: 400, Type: "overloaded_error"}, true, time.Second},
		{"code internal_error", base, &keel.APICallError{Code: "INTERNAL_ERROR"}, true, time.Second},
		{"code timeout", base, &keel.APICallError{Code: "timeout"}, true, time.Second},
		{"code temporarily_unavailable", base, &keel.APICallError{Code: "temporarily_unavailable"}, true, time.Second},
		{"code service_unavailable", base, &keel.APICallError{Code: "service_unavailable"}, true, time.Second},
		{"message says retry", base, errors.New("stream error: An error occurred. You can retry your request."), true, time.Second},
		// An adapter's APICallError is read by its fields: the adapter
		// sets Retryable from what the body says; text is for errors from
		// elsewhere.
		{"adapter's body is not read", base, &keel.APICallError{StatusCode: 400, Body: `{"error":{"message":"you can retry your request"}}`}, false, 0},
		{"adapter's message is not read", base, &keel.APICallError{StatusCode: 400, Message: "You can retry your request."}, false, 0},
		{"text under an adapter's error is not read", base, &keel.APICallError{StatusCode: 400, Cause: errors.New("connection reset by peer")}, false, 0},
		{"adapter's retryable flag", base, &keel.APICallError{StatusCode: 400, Message: "You can retry your request.", Retryable: true}, true, time.Second},
		{"joined", base, errors.Join(errors.New("stream closed"), apiErr(503)), true, time.Second},
		{"deep chain", base, deepWrap(apiErr(502), 10), true, time.Second},
		{"connection reset", base, fmt.Errorf("openai: %w", reset), true, time.Second},
		{"connection reset text", base, errors.New("read tcp 10.0.0.1:443: connection reset by peer"), true, time.Second},
		{"unexpected eof", base, fmt.Errorf("stream: %w", io.ErrUnexpectedEOF), true, time.Second},
		{"reset ignores configured delay", processor.StreamErrorRetryOptions{Delay: 9 * time.Second}, io.ErrUnexpectedEOF, true, time.Second},
		{"malformed function call", base, errors.New("google: finish reason MALFORMED_FUNCTION_CALL"), true, 500 * time.Millisecond},
		{"malformed function call code", base, &keel.APICallError{Provider: "google", StatusCode: 200, Code: "MALFORMED_FUNCTION_CALL", Retryable: true}, true, 500 * time.Millisecond},
		{"malformed function call only in an adapter's body", base, &keel.APICallError{Provider: "google", StatusCode: 200, Body: `{"finishReason":"MALFORMED_FUNCTION_CALL"}`}, false, 0},
		{"reset under an adapter's error", base, &keel.APICallError{Provider: "google", Retryable: true, Cause: fmt.Errorf("read: %w", reset)}, true, time.Second},
		{"cut short under an adapter's error", base, &keel.APICallError{Provider: "openai", Retryable: true, Cause: fmt.Errorf("stream ended: %w", io.ErrUnexpectedEOF)}, true, time.Second},
		{"idle timeout", base, &keel.APICallError{Provider: "anthropic", Retryable: true, Cause: fmt.Errorf("%w: nothing received for 1m0s", keel.ErrIdleTimeout)}, true, time.Second},
		{"400 off", base, apiErr(400), false, 0},
		{"400 opted in", processor.StreamErrorRetryOptions{RetryBadRequest: true, Delay: time.Second}, apiErr(400), true, time.Second},
		{"401", base, apiErr(401), false, 0},
		{"403", base, apiErr(403), false, 0},
		{"401 should-retry", base, apiErr(401, "X-Should-Retry", "true"), false, 0},
		{"403 opted in 400", processor.StreamErrorRetryOptions{RetryBadRequest: true, RetryUnknown: true}, apiErr(403), false, 0},
		{"invalid_api_key", base, &keel.APICallError{StatusCode: 500, Code: "invalid_api_key", Retryable: true}, false, 0},
		{"authentication_error", base, &keel.APICallError{StatusCode: 529, Type: "authentication_error", Retryable: true}, false, 0},
		{"access_denied", base, &keel.APICallError{Code: "access_denied", Retryable: true}, false, 0},
		{"forbidden", base, &keel.APICallError{Type: "forbidden", Retryable: true}, false, 0},
		{"permission_denied", base, &keel.APICallError{Code: "PERMISSION_DENIED", Retryable: true}, false, 0},
		{"auth deep in a join", base, errors.Join(apiErr(503), deepWrap(apiErr(401), 3)), false, 0},
		{"canceled", base, context.Canceled, false, 0},
		{"deadline", base, fmt.Errorf("call: %w", context.DeadlineExceeded), false, 0},
		{"canceled inside retryable", base, &keel.APICallError{Retryable: true, Cause: context.Canceled}, false, 0},
		{"unknown", base, errors.New("boom"), false, 0},
		{"unknown opted in", processor.StreamErrorRetryOptions{RetryUnknown: true, Delay: time.Second}, errors.New("boom"), true, time.Second},
		{"unknown opted in, final refusal", processor.StreamErrorRetryOptions{RetryUnknown: true}, &keel.UnsupportedFunctionalityError{Functionality: "media type: application/zip"}, false, 0},
		{"unknown opted in, final 422", processor.StreamErrorRetryOptions{RetryUnknown: true}, apiErr(422), false, 0},
		{"delay func", processor.StreamErrorRetryOptions{Delay: time.Hour, DelayFunc: func(a int) time.Duration { return time.Duration(a) * 100 * time.Millisecond }}, apiErr(503), true, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := processor.NewStreamErrorRetry(tt.opts)
			d := decide(t, p, processor.NewRun("r", nil), tt.err)
			if d.Retry != tt.want || d.Delay != tt.delay {
				t.Errorf("Got(%q) = %+v; want Retry %v Delay %v", tt.err, d, tt.want, tt.delay)
			}
		})
	}
}

func TestStreamErrorRetryCounts(t *testing.T) {
	tests := []struct {
		name   string
		p      *processor.StreamErrorRetry
		errs   []error
		delays []time.Duration // -1: no retry
	}{
		{"class default retries once", processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{}),
			[]error{apiErr(503), apiErr(503)}, []time.Duration{0, -1}},
		{"default instance: 2 retries, 3 s", processor.DefaultStreamErrorRetry(),
			[]error{apiErr(503), apiErr(500), apiErr(503)}, []time.Duration{3 * time.Second, 3 * time.Second, -1}},
		{"max retries 3", processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 3}),
			[]error{apiErr(503), apiErr(503), apiErr(503), apiErr(503)}, []time.Duration{0, 0, 0, -1}},
		{"negative max retries", processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: -1}),
			[]error{apiErr(503)}, []time.Duration{-1}},
		{"reset backoff", processor.DefaultStreamErrorRetry(),
			[]error{io.ErrUnexpectedEOF, io.ErrUnexpectedEOF, io.ErrUnexpectedEOF}, []time.Duration{time.Second, 2 * time.Second, -1}},
		{"malformed backoff", processor.DefaultStreamErrorRetry(),
			[]error{errors.New("MALFORMED_FUNCTION_CALL"), errors.New("MALFORMED_FUNCTION_CALL"), errors.New("MALFORMED_FUNCTION_CALL")},
			[]time.Duration{500 * time.Millisecond, time.Second, -1}},
		{"400 once", processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 5, RetryBadRequest: true}),
			[]error{apiErr(400), apiErr(400)}, []time.Duration{0, -1}},
		{"counts per matcher", processor.DefaultStreamErrorRetry(),
			[]error{apiErr(503), apiErr(503), apiErr(503), io.ErrUnexpectedEOF}, []time.Duration{3 * time.Second, 3 * time.Second, -1, time.Second}},
		{"delay func by attempt", processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{MaxRetries: 2,
			DelayFunc: func(a int) time.Duration { return time.Duration(a) * time.Second }}),
			[]error{apiErr(503), apiErr(503), apiErr(503)}, []time.Duration{time.Second, 2 * time.Second, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := processor.NewRun("r", nil)
			for i, err := range tt.errs {
				d := decide(t, tt.p, run, err)
				want := tt.delays[i]
				if (want < 0) == d.Retry || (d.Retry && d.Delay != want) {
					t.Fatalf("Got(call %d, %v) = %+v; want delay %v (-1: no retry)", i, err, d, want)
				}
			}
		})
	}
}

func TestStreamErrorRetryMatcherOrder(t *testing.T) {
	is503 := func(err error) bool {
		var api *keel.APICallError
		return errors.As(err, &api) && api.StatusCode == 503
	}
	always := func(error) bool { return true }
	fixed := func(d time.Duration) func(int) time.Duration { return func(int) time.Duration { return d } }
	tests := []struct {
		name     string
		matchers []processor.RetryMatcher
		errs     []error
		delays   []time.Duration
	}{
		{"caller before builtins", []processor.RetryMatcher{{Name: "mine", Match: is503, MaxRetries: 3, Delay: fixed(7 * time.Second)}},
			[]error{apiErr(503), apiErr(503), apiErr(503), apiErr(503)}, []time.Duration{7 * time.Second, 7 * time.Second, 7 * time.Second, -1}},
		{"first match wins", []processor.RetryMatcher{
			{Name: "first", Match: is503, MaxRetries: 1, Delay: fixed(time.Second)},
			{Name: "second", Match: always, MaxRetries: 5, Delay: fixed(time.Minute)}},
			[]error{apiErr(503), apiErr(503)}, []time.Duration{time.Second, -1}},
		{"others still reach builtins", []processor.RetryMatcher{{Name: "mine", Match: is503, Delay: fixed(7 * time.Second)}},
			[]error{apiErr(502)}, []time.Duration{2 * time.Second}},
		{"negative max blocks", []processor.RetryMatcher{{Name: "never", Match: is503, MaxRetries: -1}},
			[]error{apiErr(503)}, []time.Duration{-1}},
		{"caller cannot retry 401", []processor.RetryMatcher{{Name: "all", Match: always, MaxRetries: 5}},
			[]error{apiErr(401)}, []time.Duration{-1}},
		{"caller matches unknown", []processor.RetryMatcher{{Name: "eof", Match: func(err error) bool { return strings.Contains(err.Error(), "half-closed") }}},
			[]error{deepWrap(errors.New("half-closed stream"), 3)}, []time.Duration{2 * time.Second}},
		{"same names, own counts", []processor.RetryMatcher{
			{Name: "x", Match: is503, MaxRetries: 1},
			{Name: "x", Match: always, MaxRetries: 1}},
			[]error{apiErr(503), apiErr(500), apiErr(503)}, []time.Duration{2 * time.Second, 2 * time.Second, -1}},
		{"nil match skipped", []processor.RetryMatcher{{Name: "nil"}}, []error{apiErr(503)}, []time.Duration{2 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{Delay: 2 * time.Second, Matchers: tt.matchers})
			run := processor.NewRun("r", nil)
			for i, err := range tt.errs {
				d := decide(t, p, run, err)
				want := tt.delays[i]
				if (want < 0) == d.Retry || (d.Retry && d.Delay != want) {
					t.Fatalf("Got(call %d, %v) = %+v; want delay %v (-1: no retry)", i, err, d, want)
				}
			}
		})
	}
}

func TestStreamErrorRetryAfterOutput(t *testing.T) {
	ev := func() *processor.APIErrorEvent {
		return &processor.APIErrorEvent{Run: processor.NewRun("r", nil), Err: apiErr(503), OutputSent: true}
	}
	def := processor.DefaultStreamErrorRetry()
	if def.RetriesAfterOutput() {
		t.Errorf("Got(default RetriesAfterOutput) = true; want false")
	}
	if d, _ := def.HandleAPIError(context.Background(), ev()); d.Retry {
		t.Errorf("Got(default, output sent) = %+v; want no retry", d)
	}
	opt := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{RetryAfterOutput: true})
	if !opt.RetriesAfterOutput() {
		t.Errorf("Got(opted RetriesAfterOutput) = false; want true")
	}
	if d, _ := opt.HandleAPIError(context.Background(), ev()); !d.Retry {
		t.Errorf("Got(opted, output sent) = %+v; want a retry", d)
	}
}

// TestStreamErrorRetryConcurrentRuns checks that runs sharing one
// processor value count their retries apart.
func TestStreamErrorRetryConcurrentRuns(t *testing.T) {
	p := processor.DefaultStreamErrorRetry()
	const runs = 8
	got := make([]int, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			run := processor.NewRun(fmt.Sprint("r", i), nil)
			for range 5 {
				if d, _ := p.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: apiErr(503)}); d.Retry {
					got[i]++
				}
			}
		})
	}
	wg.Wait()
	for i, n := range got {
		if n != 2 {
			t.Errorf("Got(run %d retries) = %d; want 2", i, n)
		}
	}
}

func TestStreamErrorRetryID(t *testing.T) {
	if got := processor.DefaultStreamErrorRetry().ID(); got != "stream-error-retry-processor" {
		t.Errorf("Got(ID) = %q; want %q", got, "stream-error-retry-processor")
	}
}

// TestStreamErrorRetryOwnCap checks that the processor stops at its own
// maximum even when the run's cap would allow more.
func TestStreamErrorRetryOwnCap(t *testing.T) {
	run := processor.NewRun("r", nil)
	pl := processor.NewPipeline([]processor.Processor{processor.DefaultStreamErrorRetry()}, 10)
	n := 0
	for range 5 {
		if d := pl.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: apiErr(503)}); d.Retry {
			n++
		}
	}
	if n != 2 || run.RetryCount() != 2 {
		t.Errorf("Got(retries, RetryCount) = %d, %d; want 2, 2", n, run.RetryCount())
	}
}

func ExampleNewStreamErrorRetry() {
	p := processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{
		MaxRetries: 2,
		DelayFunc:  func(attempt int) time.Duration { return time.Duration(attempt) * time.Second },
	})
	run := processor.NewRun("run-1", nil)
	overloaded := &keel.APICallError{Provider: "anthropic", StatusCode: 529, Type: "overloaded_error", Retryable: true}
	for range 3 {
		d, _ := p.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: overloaded})
		fmt.Println(d.Retry, d.Delay)
	}
	// Output:
	// true 1s
	// true 2s
	// false 0s
}

// adapterStreams are short streamed answers in each provider's wire
// format, for TestStreamErrorRetryReadsAdapterErrors.
var adapterStreams = []struct {
	model, basePath string
	body            string
}{
	{"openai/gpt-4o-mini", "/v1", "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n" +
		"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: [DONE]\n\n"},
	{"anthropic/claude-sonnet-4-5", "", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
	{"google/gemini-2.5-flash", "", googletest.StreamTextBody("Hello there, friend")},
}

// TestStreamErrorRetryReadsAdapterErrors checks the processor against the
// errors keel's adapters really build, from servers speaking each
// provider's wire format: a connection reset inside a streamed event is
// retried as a connection reset (backoff 1 s, not the configured 3 s), a
// provider stalling mid-stream as a retryable error, and a 401 never.
func TestStreamErrorRetryReadsAdapterErrors(t *testing.T) {
	for _, a := range adapterStreams {
		reset := providertest.Reply{Body: a.body, ContentType: "text/event-stream", ResetAfter: providertest.EventCut(a.body, 2)}
		stall := providertest.Reply{Body: a.body, ContentType: "text/event-stream", Stall: true}
		unauthorized := providertest.Reply{Status: 401, Body: `{"error":{"message":"bad key","type":"authentication_error","code":"invalid_api_key"}}`}
		for _, tc := range []struct {
			name  string
			reply providertest.Reply
			retry bool
			delay time.Duration
		}{
			{"reset inside an event", reset, true, time.Second},
			{"stalled mid-stream", stall, true, 3 * time.Second},
			{"401", unauthorized, false, 0},
		} {
			t.Run(a.model+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				s := providertest.NewServer(t, tc.reply)
				m, err := provider.Resolve(a.model, provider.Options{APIKey: "k", BaseURL: s.URL() + a.basePath, IdleTimeout: 100 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				var callErr error
				for _, err := range m.Stream(context.Background(), &keel.Request{Messages: []keel.Message{keel.UserText("hi")}}) {
					if err != nil {
						callErr = err
					}
				}
				if callErr == nil {
					t.Fatal("Got(stream error) = nil; want the call to fail")
				}
				d := decide(t, processor.DefaultStreamErrorRetry(), processor.NewRun("r", nil), callErr)
				if d.Retry != tc.retry || d.Delay != tc.delay {
					t.Errorf("Got(decision for %v) = %+v; want Retry %v Delay %v", callErr, d, tc.retry, tc.delay)
				}
			})
		}
	}
}
