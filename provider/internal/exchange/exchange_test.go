package exchange_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/internal/exchange"
	"github.com/keel-go/keel/provider/providertest"
)

// short is the bound the tests pass or stay within; long is one they
// never reach.
const (
	short = 100 * time.Millisecond
	long  = time.Minute
)

// call sends one POST through x and reads the whole answer, pausing
// between reads for pause.
func call(t *testing.T, x *exchange.Exchange, url string, body io.Reader, pause time.Duration) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), "POST", url, body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Do(req, http.DefaultTransport.RoundTrip)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var got strings.Builder
	buf := make([]byte, 8)
	for {
		n, err := res.Body.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			return got.String(), nil
		}
		if err != nil {
			return got.String(), err
		}
		time.Sleep(pause) // a slow reader, the behaviour under test
	}
}

func TestBounds(t *testing.T) {
	answer := "data: one\n\ndata: two\n\ndata: three\n\n"
	tests := []struct {
		name     string
		reply    providertest.Reply
		timeouts exchange.Timeouts
		pause    time.Duration
		wantErr  string // "" for a whole answer
	}{
		{"whole answer", providertest.Reply{Body: answer}, exchange.Timeouts{Idle: short, FirstByte: long}, 0, ""},
		{"slow first byte within its bound", providertest.Reply{Body: answer, Delay: 3 * short}, exchange.Timeouts{Idle: short, FirstByte: long}, 0, ""},
		{"no first byte", providertest.Reply{Body: answer, Delay: long}, exchange.Timeouts{Idle: long, FirstByte: short}, 0, "no answer within"},
		{"headers, then no body", providertest.Reply{Stall: true}, exchange.Timeouts{Idle: long, FirstByte: short}, 0, "no answer within"},
		// The wait for the first byte of the body is the first-byte bound's,
		// even when the idle bound is shorter.
		{"headers, then no body: the first-byte bound", providertest.Reply{Stall: true}, exchange.Timeouts{Idle: short, FirstByte: 5 * short}, 0, "no answer within"},
		{"stall mid-stream", providertest.Reply{Body: answer, Stall: true}, exchange.Timeouts{Idle: short, FirstByte: long}, 0, "nothing received"},
		{"stall mid-body", providertest.Reply{Body: `{"answer":"long"}`, StallAfter: 5}, exchange.Timeouts{Idle: short, FirstByte: long}, 0, "nothing received"},
		{"slow reader is not the provider", providertest.Reply{Body: answer}, exchange.Timeouts{Idle: short, FirstByte: long}, 3 * short, ""},
		{"bounds off", providertest.Reply{Body: answer, Delay: 3 * short}, exchange.Timeouts{Idle: -1, FirstByte: -1}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := providertest.NewServer(t, tc.reply)
			x := exchange.New(tc.timeouts)
			got, err := call(t, x, s.URL(), strings.NewReader("question"), tc.pause)
			if tc.wantErr == "" {
				if err != nil || got != tc.reply.Body || x.Broken() != nil {
					t.Errorf("Got(answer) = %q, %v, broken %v; want %q whole", got, err, x.Broken(), tc.reply.Body)
				}
				return
			}
			if !errors.Is(err, keel.ErrIdleTimeout) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Got(error) = %v; want keel.ErrIdleTimeout saying %q", err, tc.wantErr)
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Got(error) = %v; want no context error: the caller's context is fine", err)
			}
			if b := x.Broken(); !errors.Is(b, keel.ErrIdleTimeout) {
				t.Errorf("Got(Broken) = %v; want the idle timeout", b)
			}
			// The request was given up: the server saw the client leave
			// rather than ending its stall on its own after 10 s.
			deadline := time.Now().Add(20 * time.Second) // a loaded machine may take seconds
			for s.Cancelled() == 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if s.Cancelled() != 1 {
				t.Errorf("Got(server saw the client leave) = %d; want 1", s.Cancelled())
			}
		})
	}
}

// TestUploadToAServerThatStopsReading checks that a server which stops
// taking the request is a silent provider too.
func TestUploadToAServerThatStopsReading(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // never reads the body
	}))
	defer srv.Close()
	defer close(release)
	x := exchange.New(exchange.Timeouts{Idle: short, FirstByte: long})
	// Far more than the socket buffers hold, so the transport's writes
	// block once the server stops reading.
	body := io.LimitReader(zeros{}, 256<<20)
	_, err := call(t, x, srv.URL, body, 0)
	if !errors.Is(err, keel.ErrIdleTimeout) || !strings.Contains(err.Error(), "took nothing more of the request") {
		t.Errorf("Got(error) = %v; want keel.ErrIdleTimeout while sending", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestResetMidBody checks that a connection reset while the answer is read
// is what Broken reports, as the reset it is.
func TestResetMidBody(t *testing.T) {
	body := "data: {\"text\":\"one\"}\n\ndata: {\"text\":\"two\"}\n\n"
	s := providertest.NewServer(t, providertest.Reply{Body: body, ResetAfter: providertest.EventCut(body, 2)})
	x := exchange.New(exchange.Timeouts{})
	got, err := call(t, x, s.URL(), strings.NewReader("q"), 0)
	if err == nil {
		t.Fatalf("Got(answer) = %q; want the reset", got)
	}
	if b := x.Broken(); !errors.Is(b, syscall.ECONNRESET) || b != err {
		t.Errorf("Got(Broken) = %v; want the read's error, syscall.ECONNRESET", b)
	}
	if !strings.HasPrefix(body, got) || len(got) <= strings.Index(body, "\n\n") {
		t.Errorf("Got(read before the reset) = %q; want the first event and part of the second", got)
	}
}

func TestErrorAnswerIsKept(t *testing.T) {
	const errBody = `{"error":{"message":"slow down"}}`
	s := providertest.NewServer(t, providertest.Reply{Status: 429, Body: errBody, Header: http.Header{"Retry-After": {"3"}}})
	x := exchange.New(exchange.Timeouts{})
	if r := x.Record(); r.Sent {
		t.Errorf("Got(Record before Do) = %+v; want nothing sent", r)
	}
	got, err := call(t, x, s.URL()+"/v1/x", strings.NewReader("q"), 0)
	if err != nil || got != errBody {
		t.Errorf("Got(body) = %q, %v; want the error body given back whole", got, err)
	}
	r := x.Record()
	if !r.Sent || r.URL != s.URL()+"/v1/x" || r.Status != 429 || r.Header.Get("Retry-After") != "3" || string(r.Body) != errBody {
		t.Errorf("Got(Record) = %+v; want the URL, 429, its headers and body", r)
	}
	if x.Broken() != nil {
		t.Errorf("Got(Broken) = %v; want nil", x.Broken())
	}
}

// TestCallersCancellationIsNotBroken checks that the caller's own
// cancellation is left to the caller's context, not reported as a broken
// connection.
func TestCallersCancellationIsNotBroken(t *testing.T) {
	s := providertest.NewServer(t, providertest.Reply{Body: "data: a\n\ndata: b\n\n", Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL(), strings.NewReader("q"))
	x := exchange.New(exchange.Timeouts{Idle: long, FirstByte: long})
	res, err := x.Do(req, http.DefaultTransport.RoundTrip)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 64)
	if _, err := res.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err = io.ReadAll(res.Body); !errors.Is(err, context.Canceled) {
		t.Errorf("Got(read after cancel) = %v; want context.Canceled", err)
	}
	if x.Broken() != nil {
		t.Errorf("Got(Broken) = %v; want nil: the caller cancelled", x.Broken())
	}
}
