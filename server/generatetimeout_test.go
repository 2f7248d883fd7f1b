package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/server"
)

// stallingGemini is a Gemini endpoint that stalls: before any byte of its
// answer, or after the first chunk of its body. It counts the calls.
func stallingGemini(t *testing.T, afterFirstChunk bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	done := make(chan struct{})
	calls := new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if afterFirstChunk {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(`{"candidates": [{"content": {"parts": [{"text": "The answer is`))
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	return srv, calls
}

// A provider that stalls, before its first byte or after its first chunk,
// gets /generate a 504 within the server's bound, whatever the provider's
// own timeouts and retries would wait, saying what stalled; the turn's
// input is stored.
func TestGenerateStallingProvider(t *testing.T) {
	const bound = 1500 * time.Millisecond
	tests := []struct {
		name            string
		afterFirstChunk bool
		idle            time.Duration // the provider's idle timeout: 0 is its 60 s
		want            string
		minCalls        int64
	}{
		{"no first byte", false, 0, "sent no byte of its answer", 1},
		{"stalls after its first chunk", true, 0, "stopped after", 1},
		// The call breaks off after 200 ms of silence, to be tried again
		// after a wait: the wait is inside the bound too.
		{"a retry's wait", true, 200 * time.Millisecond, "no model call was running", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := stallingGemini(t, tt.afterFirstChunk)
			model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "test-key", BaseURL: srv.URL, IdleTimeout: tt.idle})
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, envOptions{model: model, config: func(c *server.Config) { c.GenerateTimeout = bound }})
			start := time.Now()
			status, body := e.do("POST", "/api/agents/support/generate", `{"memory":{"thread":"t-1","resource":"r"},"messages":"What is it?"}`)
			took := time.Since(start)
			var v struct{ Error, Code string }
			_ = json.Unmarshal(body, &v)
			if status != http.StatusGatewayTimeout || v.Code != server.CodeRunTimeout || !strings.Contains(v.Error, "1.5s bound") ||
				!strings.Contains(v.Error, tt.want) {
				t.Errorf("Got(generate) = %d %s; want 504 RUN_TIMEOUT naming the bound and %q", status, body, tt.want)
			}
			if took > bound+2*time.Second {
				t.Errorf("Got(answer after) %v; want it within the %v bound (and a little)", took, bound)
			}
			if n := calls.Load(); n < tt.minCalls {
				t.Errorf("Got(calls to the provider) = %d; want at least %d", n, tt.minCalls)
			}
			_, out := e.do("GET", "/api/memory/threads/t-1/messages?resourceId=r", nil)
			var page struct{ Messages []struct{ Role string } }
			if err := json.Unmarshal(out, &page); err != nil || len(page.Messages) != 1 || page.Messages[0].Role != "user" {
				t.Errorf("Got(thread) = %s; want the user's message stored", out)
			}
		})
	}
}

// GenerateTimeout may not be over the write timeout: a proxy that gives
// up with it would never see the answer.
func TestGenerateTimeoutOverWriteTimeout(t *testing.T) {
	_, err := server.New(server.Config{GenerateTimeout: time.Minute, WriteTimeout: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "GenerateTimeout") {
		t.Errorf("Got(New) = %v; want an error naming GenerateTimeout", err)
	}
}
