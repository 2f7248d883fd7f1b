package providertest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/provider/providertest"
)

func post(t *testing.T, ctx context.Context, url, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("Got(POST) = %v; want an answer", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// waitCancelled waits, at most 20 s, for s to see a client leave.
func waitCancelled(s *providertest.Server) {
	deadline := time.Now().Add(20 * time.Second)
	for s.Cancelled() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

func TestServerRepliesInOrderAndRepeatsTheLast(t *testing.T) {
	s := providertest.NewServer(t,
		providertest.Reply{Status: 429, Header: http.Header{"Retry-After": {"2"}}, Body: `{"error":"slow down"}`},
		providertest.Reply{Body: `{"ok":true}`, ContentType: "text/event-stream"},
	)
	tests := []struct {
		status      int
		body, ctype string
	}{
		{429, `{"error":"slow down"}`, "application/json"},
		{200, `{"ok":true}`, "text/event-stream"},
		{200, `{"ok":true}`, "text/event-stream"},
	}
	for i, tc := range tests {
		status, h, body := post(t, context.Background(), s.URL()+"/v1/x?alt=sse", "req"+string(rune('0'+i)))
		if status != tc.status || body != tc.body || h.Get("Content-Type") != tc.ctype {
			t.Errorf("Got(reply %d) = %d %q %q; want %d %q %q", i, status, body, h.Get("Content-Type"), tc.status, tc.body, tc.ctype)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("Got(requests) = %d; want 3", len(reqs))
	}
	if r := reqs[1]; r.Method != "POST" || r.Path != "/v1/x" || r.Query != "alt=sse" || string(r.Body) != "req1" {
		t.Errorf("Got(recorded) = %+v; want POST /v1/x alt=sse req1", r)
	}
}

func TestServerStallStopsBeforeTheLastEvent(t *testing.T) {
	s := providertest.NewServer(t, providertest.Reply{
		Body:  "data: one\n\ndata: two\n\ndata: [DONE]\n\n",
		Stall: true, ContentType: "text/event-stream",
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	got := ""
	for !strings.HasSuffix(got, "two\n\n") {
		n, err := resp.Body.Read(buf)
		got += string(buf[:n])
		if err != nil {
			t.Fatalf("Got(read) = %q, %v; want the stream to stall, not end", got, err)
		}
	}
	cancel()
	resp.Body.Close()
	waitCancelled(s)
	if got != "data: one\n\ndata: two\n\n" || s.Cancelled() != 1 {
		t.Errorf("Got(stalled body, cancelled) = %q, %d; want two events, 1", got, s.Cancelled())
	}
}

func TestServerDelayEndsWhenTheClientLeaves(t *testing.T) {
	s := providertest.NewServer(t, providertest.Reply{Body: "{}", Delay: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL(), nil)
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("Got(error) = nil; want the deadline")
	}
	waitCancelled(s)
	if s.Cancelled() != 1 {
		t.Errorf("Got(cancelled) = %d; want 1", s.Cancelled())
	}
}

func TestErrorKindNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range providertest.ErrorKinds {
		if n := k.String(); n == "unknown" || seen[n] {
			t.Errorf("Got(%d.String()) = %q; want a distinct name", int(k), n)
		} else {
			seen[n] = true
		}
	}
}

func TestServerFuncAnswersEachRequest(t *testing.T) {
	s := providertest.NewServerFunc(t, func(r providertest.Recorded, n int) providertest.Reply {
		return providertest.Reply{Status: 200 + n, Body: r.Path + ":" + string(r.Body)}
	})
	for i, want := range []string{"/a:one", "/b:two"} {
		path, body, _ := strings.Cut(want[1:], ":")
		status, _, got := post(t, context.Background(), s.URL()+"/"+path, body)
		if status != 200+i || got != want {
			t.Errorf("Got(reply %d) = %d %q; want %d %q", i, status, got, 200+i, want)
		}
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("Got(requests) = %d; want 2", n)
	}
}

// TestServerCutsTheBody checks StallAfter and ResetAfter: the client reads
// exactly the first bytes, then waits (until it leaves) or gets a reset.
func TestServerCutsTheBody(t *testing.T) {
	body := "data: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: {\"n\":3}\n\n"
	cut := providertest.EventCut(body, 2)
	if cut <= strings.Index(body, "\n\n") || cut >= strings.LastIndex(body, "data:") || !strings.HasPrefix(body[strings.Index(body, "\n\n")+2:], "data:") {
		t.Fatalf("Got(EventCut(body, 2)) = %d; want a place inside the second event", cut)
	}
	if got := providertest.EventCut(body, 4); got != -1 {
		t.Errorf("Got(EventCut of a missing event) = %d; want -1", got)
	}
	t.Run("reset", func(t *testing.T) {
		s := providertest.NewServer(t, providertest.Reply{Body: body, ResetAfter: cut})
		resp, err := http.Post(s.URL(), "text/plain", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		if string(got) != body[:cut] || !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("Got(body) = %q, %v; want %q, then syscall.ECONNRESET", got, err, body[:cut])
		}
	})
	t.Run("stall", func(t *testing.T) {
		s := providertest.NewServer(t, providertest.Reply{Body: body, StallAfter: cut})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL(), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got := make([]byte, cut)
		if _, err := io.ReadFull(resp.Body, got); err != nil || string(got) != body[:cut] {
			t.Fatalf("Got(first bytes) = %q, %v; want %q", got, err, body[:cut])
		}
		cancel()
		waitCancelled(s)
		if s.Cancelled() != 1 {
			t.Errorf("Got(cancelled) = %d; want 1: the server waits for the client to leave", s.Cancelled())
		}
	})
}
