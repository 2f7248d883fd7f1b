package providertest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
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
	deadline := time.Now().Add(2 * time.Second)
	for s.Cancelled() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
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
	deadline := time.Now().Add(2 * time.Second)
	for s.Cancelled() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
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
