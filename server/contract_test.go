package server_test

import (
	"testing"
	"time"

	"github.com/keel-go/keel/server"
)

// TestDefaultsAreTheDocumentedOnes pins each default limit to the figure
// the documentation gives, so that changing one is a visible decision.
func TestDefaultsAreTheDocumentedOnes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"DefaultMaxBodyBytes", server.DefaultMaxBodyBytes, int64(50 << 20)},
		{"DefaultMaxFiles", server.DefaultMaxFiles, 100},
		{"DefaultKeepAlive", server.DefaultKeepAlive, 15 * time.Second},
		{"DefaultShutdownGrace", server.DefaultShutdownGrace, 30 * time.Second},
		{"DefaultHeaderTimeout", server.DefaultHeaderTimeout, 10 * time.Second},
		{"DefaultBodyGrace", server.DefaultBodyGrace, 10 * time.Second},
		{"DefaultMinBodyRate", server.DefaultMinBodyRate, int64(32 << 10)},
		{"DefaultWriteTimeout", server.DefaultWriteTimeout, 30 * time.Second},
		{"DefaultIdleTimeout", server.DefaultIdleTimeout, 2 * time.Minute},
		{"DefaultMessagesPerPage", server.DefaultMessagesPerPage, 40},
	} {
		if c.got != c.want {
			t.Errorf("Got(server.%s) = %v; want %v", c.name, c.got, c.want)
		}
	}
}
