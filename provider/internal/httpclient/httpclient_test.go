package httpclient

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// TestReusesConnectionsUnderConcurrency shows that 16 goroutines calling
// one host again and again dial about 16 connections, not one per call
// as http.DefaultTransport's two idle connections per host would.
func TestReusesConnectionsUnderConcurrency(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	c := Or(nil)
	const workers, calls = 16, 50
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range calls {
				resp, err := c.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	if got := conns.Load(); got > 2*workers {
		t.Errorf("Got %d connections for %d calls from %d goroutines; want at most %d", got, workers*calls, workers, 2*workers)
	}
}

func TestClientsShareTheTransport(t *testing.T) {
	if Or(nil).Transport != Or(nil).Transport {
		t.Error("Got two transports; want one shared")
	}
	if own := new(http.Client); Or(own) != own {
		t.Error("Got(Or(client)) another client; want the one given")
	}
	// 64 idle connections per provider host: the documented figure, so
	// that a change to the constant shows here.
	if got := Transport().MaxIdleConnsPerHost; got != 64 || MaxIdleConnsPerHost != 64 {
		t.Errorf("Got MaxIdleConnsPerHost %d (constant %d); want 64", got, MaxIdleConnsPerHost)
	}
}
