package providertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

// The bounds the silence tests give an adapter: short ones they pass,
// long ones they never reach.
const (
	shortWait = 100 * time.Millisecond
	longWait  = time.Minute
)

// testSilence checks the adapter's idle and first-byte timeouts: a
// provider that goes quiet once its answer has started is given up after
// the idle timeout, one that never starts after the first-byte timeout,
// each with a retryable APICallError whose cause is keel.ErrIdleTimeout;
// and a slow first byte within its bound is waited for, however short the
// idle timeout.
func testSilence(t *testing.T, h Harness) {
	text := "one two three four"
	stalledMidBody := h.Text(text)
	stalledMidBody.StallAfter = len(stalledMidBody.Body) / 2
	stalledMidStream := h.StreamText(text)
	stalledMidStream.Stall = true
	neverAnswers := h.Text(text)
	neverAnswers.Delay = longWait
	neverStreams := h.StreamText(text)
	neverStreams.Delay = longWait
	slowAnswer := h.Text(text)
	slowAnswer.Delay = 3 * shortWait
	slowStream := h.StreamText(text)
	slowStream.Delay = 3 * shortWait
	idle := Timeouts{Idle: shortWait, FirstByte: longWait}
	firstByte := Timeouts{Idle: longWait, FirstByte: shortWait}
	tests := []struct {
		name     string
		reply    Reply
		stream   bool
		timeouts Timeouts
		silent   bool // the call must end with the idle timeout
	}{
		{"stream stalls mid-stream", stalledMidStream, true, idle, true},
		{"body stalls half way", stalledMidBody, false, idle, true},
		{"no answer", neverAnswers, false, firstByte, true},
		{"stream never starts", neverStreams, true, firstByte, true},
		{"slow first byte is waited for", slowAnswer, false, idle, false},
		{"slow first event is waited for", slowStream, true, idle, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, tc.reply)
			got, err := answer(t, h.NewModel(t, s.URL(), tc.timeouts), tc.stream)
			if !tc.silent {
				if err != nil || got != text {
					t.Errorf("Got(answer) = %q, %v; want %q: only a first byte later than the first-byte timeout ends a call", got, err, text)
				}
				return
			}
			wantBrokenCall(t, h, err, keel.ErrIdleTimeout)
			// The call was given up: the server saw the client leave
			// rather than ending its wait on its own.
			waitFor(t, "the server to see the client leave", func() bool { return s.Cancelled() == 1 })
		})
	}
}

// answer asks m for a text answer, streamed or not, and returns its text.
func answer(t *testing.T, m keel.Model, stream bool) (string, error) {
	t.Helper()
	req := &keel.Request{Messages: userText("hi")}
	if stream {
		c := Collect(t, m.Stream(context.Background(), req))
		return c.Text, c.Err
	}
	resp, err := m.Generate(context.Background(), req)
	if err != nil {
		return "", err
	}
	return resp.Text(), nil
}

// wantBrokenCall checks that err is the retryable APICallError, without a
// status, of an answer that broke off for cause: the provider's silence
// or a reset connection.
func wantBrokenCall(t *testing.T, h Harness, err, cause error) {
	t.Helper()
	var ae *keel.APICallError
	if !errors.As(err, &ae) {
		t.Fatalf("Got(error) = %T %v; want *keel.APICallError", err, err)
	}
	if ae.StatusCode != 0 || !ae.Retryable || ae.Provider != h.Provider || !errors.Is(err, cause) {
		t.Errorf("Got(error) = status %d retryable %v provider %q %v; want status 0, retryable, %q, caused by %v",
			ae.StatusCode, ae.Retryable, ae.Provider, err, h.Provider, cause)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Got(error) = %v; want no context error: the caller's context is fine, and keel's retry gives up on those", err)
	}
}

// waitFor polls cond until it holds, failing the test when it still does
// not after most of the time a stalled reply waits: on a loaded machine a
// server may take seconds to see its client leave.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	limit := stallFor * 2 / 3
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("Got(waiting for %s) = still not after %v; want it", what, limit)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
