package providertest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

func retryableKind(k ErrorKind) bool {
	switch k {
	case RateLimited, Unavailable, Overloaded, Internal, BadGateway:
		return true
	}
	return false
}

// testErrors answers every error kind to a generate and a stream call and
// checks the APICallError each one becomes: its fields, read by whoever
// handles it, hold what the answer says.
func testErrors(t *testing.T, h Harness) {
	for _, kind := range ErrorKinds {
		t.Run(kind.String(), func(t *testing.T) {
			t.Parallel()
			rep := h.Error(kind)
			if rep.status() < 400 {
				t.Fatalf("Got(harness %s status) = %d; want an error status", kind, rep.status())
			}
			wantCode, ok := h.ErrorCodes[kind]
			if !ok {
				t.Fatalf("Got(harness ErrorCodes[%s]) = none; want the Code of that answer", kind)
			}
			wantMediaType := ""
			if kind == FileRejected {
				wantMediaType = h.RefusedMediaType
			}
			s := NewServer(t, rep)
			m := h.NewModel(t, s.URL(), Timeouts{})
			req := &keel.Request{Messages: userText("hi")}
			_, gerr := m.Generate(context.Background(), req)
			serr := Collect(t, m.Stream(context.Background(), req)).Err
			for name, err := range map[string]error{"generate": gerr, "stream": serr} {
				var ae *keel.APICallError
				if !errors.As(err, &ae) {
					t.Fatalf("Got(%s error) = %T %v; want *keel.APICallError", name, err, err)
				}
				if ae.StatusCode != rep.status() || ae.Body != rep.Body || ae.Provider != h.Provider || ae.URL == "" {
					t.Errorf("Got(%s error) = status %d provider %q url %q body %q; want %d %q, a URL and the body %q",
						name, ae.StatusCode, ae.Provider, ae.URL, ae.Body, rep.status(), h.Provider, rep.Body)
				}
				if ae.Retryable != retryableKind(kind) || ae.Retryable != keel.IsRetryableStatus(ae.StatusCode, ae.Header) {
					t.Errorf("Got(%s Retryable) = %v; want %v", name, ae.Retryable, retryableKind(kind))
				}
				if ae.Message == "" {
					t.Errorf("Got(%s Message) = %q; want the provider's message", name, ae.Message)
				}
				if ae.Code != wantCode {
					t.Errorf("Got(%s Code) = %q; want %q", name, ae.Code, wantCode)
				}
				if ae.MediaType != wantMediaType {
					t.Errorf("Got(%s MediaType) = %q; want %q", name, ae.MediaType, wantMediaType)
				}
				if !h.IsSDKError(err) {
					t.Errorf("Got(%s errors.As SDK error) = false; want true for %v", name, err)
				}
			}
			if n := len(s.Requests()); n != 2 {
				t.Errorf("Got(requests) = %d; want 2 (one per call)", n)
			}
		})
	}
}

// testStreamError checks that an error event inside an open stream ends
// the stream with an APICallError of the status the event implies.
func testStreamError(t *testing.T, h Harness) {
	if h.StreamError == nil {
		t.Skip("harness has no StreamError: the provider has no in-stream error event")
	}
	rep, status, code := h.StreamError()
	s := NewServer(t, rep)
	m := h.NewModel(t, s.URL(), Timeouts{})
	err := Collect(t, m.Stream(context.Background(), &keel.Request{Messages: userText("hi")})).Err
	var ae *keel.APICallError
	if !errors.As(err, &ae) {
		t.Fatalf("Got(stream error) = %T %v; want *keel.APICallError", err, err)
	}
	if ae.StatusCode != status || ae.Retryable != keel.IsRetryableStatus(status, nil) || ae.Code != code || ae.Message == "" {
		t.Errorf("Got(stream error) = status %d retryable %v code %q message %q; want %d %v %q and a message",
			ae.StatusCode, ae.Retryable, ae.Code, ae.Message, status, keel.IsRetryableStatus(status, nil), code)
	}
}

func testRetryAfter(t *testing.T, h Harness) {
	rep := h.Error(RateLimited)
	want := rep.Header.Get("Retry-After")
	if rep.status() != 429 || want == "" {
		t.Fatalf("Got(harness rate-limited) = %d, Retry-After %q; want 429 with a Retry-After", rep.status(), want)
	}
	s := NewServer(t, rep)
	m := h.NewModel(t, s.URL(), Timeouts{})
	_, err := m.Generate(context.Background(), &keel.Request{Messages: userText("hi")})
	var ae *keel.APICallError
	if !errors.As(err, &ae) {
		t.Fatalf("Got(error) = %v; want *keel.APICallError", err)
	}
	if got := ae.Header.Get("Retry-After"); got != want {
		t.Errorf("Got(Retry-After) = %q; want %q", got, want)
	}
	if d, ok := ae.RetryAfter(); !ok || d <= 0 {
		t.Errorf("Got(RetryAfter()) = %v, %v; want a positive wait", d, ok)
	}
}

// testShouldRetryHeader checks that the provider's x-should-retry header
// decides the retryable flag over the status, both ways.
func testShouldRetryHeader(t *testing.T, h Harness) {
	for _, tc := range []struct {
		kind  ErrorKind
		value string
		want  bool
	}{
		{Internal, "false", false},
		{BadRequest, "true", true},
	} {
		rep := h.Error(tc.kind)
		rep.Header = rep.Header.Clone()
		if rep.Header == nil {
			rep.Header = http.Header{}
		}
		rep.Header.Set("X-Should-Retry", tc.value)
		s := NewServer(t, rep)
		m := h.NewModel(t, s.URL(), Timeouts{})
		_, err := m.Generate(context.Background(), &keel.Request{Messages: userText("hi")})
		var ae *keel.APICallError
		if !errors.As(err, &ae) || ae.Retryable != tc.want || ae.Header.Get("X-Should-Retry") != tc.value {
			t.Errorf("Got(%s with x-should-retry: %s) = %v; want Retryable %v and the header kept", tc.kind, tc.value, err, tc.want)
		}
	}
}

// testNoSDKRetries checks the SDK sends a retryable failure once: keel's
// processors own retrying.
func testNoSDKRetries(t *testing.T, h Harness) {
	for _, stream := range []bool{false, true} {
		s := NewServer(t, h.Error(Unavailable))
		m := h.NewModel(t, s.URL(), Timeouts{})
		req := &keel.Request{Messages: userText("hi")}
		var err error
		if stream {
			err = Collect(t, m.Stream(context.Background(), req)).Err
		} else {
			_, err = m.Generate(context.Background(), req)
		}
		if err == nil {
			t.Fatalf("Got(stream=%v error) = nil; want a 503", stream)
		}
		if n := len(s.Requests()); n != 1 {
			t.Errorf("Got(stream=%v requests on 503) = %d; want 1", stream, n)
		}
	}
}

// testCancel checks that context errors pass through, for a call waiting
// on its answer and for a stream cancelled half way.
func testCancel(t *testing.T, h Harness) {
	t.Run("deadline", func(t *testing.T) {
		rep := h.Text("late")
		rep.Delay = quick
		s := NewServer(t, rep)
		m := h.NewModel(t, s.URL(), Timeouts{})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := m.Generate(ctx, &keel.Request{Messages: userText("hi")})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Got(error) = %v; want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > quick/2 {
			t.Errorf("Got(wait) = %v; want the call to end with its context", d)
		}
	})
	t.Run("stream", func(t *testing.T) {
		rep := h.StreamText("one two three four")
		rep.Stall = true
		s := NewServer(t, rep)
		m := h.NewModel(t, s.URL(), Timeouts{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var last error
		deltas := 0
		for ev, err := range m.Stream(ctx, &keel.Request{Messages: userText("hi")}) {
			if err != nil {
				last = err
				continue
			}
			if ev.Type == keel.EventTextDelta {
				deltas++
				cancel()
			}
		}
		if deltas == 0 || !errors.Is(last, context.Canceled) {
			t.Errorf("Got(deltas, last error) = %d, %v; want a delta, then context.Canceled", deltas, last)
		}
	})
}

// testStreamStopEarly checks that a consumer leaving the loop closes the
// connection, so the provider stops generating.
func testStreamStopEarly(t *testing.T, h Harness) {
	rep := h.StreamText("one two three four")
	rep.Stall = true
	s := NewServer(t, rep)
	m := h.NewModel(t, s.URL(), Timeouts{})
	for ev, err := range m.Stream(context.Background(), &keel.Request{Messages: userText("hi")}) {
		if err != nil {
			t.Fatalf("Got(error) = %v; want a delta first", err)
		}
		if ev.Type == keel.EventTextDelta {
			break
		}
	}
	waitFor(t, "the server to see the client leave", func() bool { return s.Cancelled() == 1 })
}

// testConnectionRefused checks that a server that cannot be reached gives
// an APICallError without a status, marked retryable.
func testConnectionRefused(t *testing.T, h Harness) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	_ = ln.Close()
	m := h.NewModel(t, url, Timeouts{})
	req := &keel.Request{Messages: userText("hi")}
	_, gerr := m.Generate(context.Background(), req)
	serr := Collect(t, m.Stream(context.Background(), req)).Err
	for name, err := range map[string]error{"generate": gerr, "stream": serr} {
		var ae *keel.APICallError
		if !errors.As(err, &ae) || ae.StatusCode != 0 || !ae.Retryable || ae.Provider != h.Provider {
			t.Errorf("Got(%s error) = %T %v; want an APICallError with status 0, retryable", name, err, err)
		}
	}
}
