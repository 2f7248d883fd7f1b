package server

import (
	"context"
	"testing"
	"time"
)

// The http.Server that Serve runs takes the Config's header and idle
// timeouts, and their defaults for a zero or negative one: an
// http.Server's own zero would be no timeout at all. Internal: only the
// http.Server shows them short of waiting 10 s or 2 min.
func TestServeTimeoutsAndTheirDefaults(t *testing.T) {
	cases := []struct {
		name                string
		header, idle, write time.Duration
		wantHeader          time.Duration
		wantIdle            time.Duration
		wantWrite           time.Duration
	}{
		{"zero", 0, 0, 0, DefaultHeaderTimeout, DefaultIdleTimeout, DefaultWriteTimeout},
		{"negative", -1, -1, -1, DefaultHeaderTimeout, DefaultIdleTimeout, 0},
		{"given", time.Second, 2 * time.Second, 3 * time.Second, time.Second, 2 * time.Second, 3 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(Config{HeaderTimeout: c.header, IdleTimeout: c.idle, WriteTimeout: c.write, GenerateTimeout: -1})
			if err != nil {
				t.Fatal(err)
			}
			hs := s.httpServer(context.Background())
			if hs.ReadHeaderTimeout != c.wantHeader || hs.IdleTimeout != c.wantIdle || hs.WriteTimeout != c.wantWrite {
				t.Errorf("Got(header, idle, write timeouts) = %v, %v, %v; want %v, %v, %v",
					hs.ReadHeaderTimeout, hs.IdleTimeout, hs.WriteTimeout, c.wantHeader, c.wantIdle, c.wantWrite)
			}
		})
	}
}
