package config_test

import (
	"strings"
	"testing"

	"github.com/keel-go/keel/config"
)

// server.metrics: on by default at the API's address; off, or on an
// address of its own, by the file; mistakes named with their line.
func TestMetricsSettings(t *testing.T) {
	tests := []struct {
		name, yaml string
		on         bool
		addr       string
		wantErr    string
	}{
		{name: "left out", yaml: "agents:\n  - id: a\n", on: true},
		{name: "off", yaml: "server:\n  metrics: {enabled: false}\nagents:\n  - id: a\n"},
		{name: "own address", yaml: "server:\n  metrics: {addr: '127.0.0.1:9464'}\nagents:\n  - id: a\n", on: true, addr: "127.0.0.1:9464"},
		{name: "bad address", yaml: "server:\n  metrics:\n    addr: metrics\nagents:\n  - id: a\n", wantErr: "conf.yaml:3: server.metrics.addr: \"metrics\": write host:port"},
		{name: "address while off", yaml: "server:\n  metrics: {enabled: false, addr: ':9464'}\nagents:\n  - id: a\n", wantErr: "server.metrics.enabled is false"},
		{name: "unknown field", yaml: "server:\n  metrics: {port: 9464}\nagents:\n  - id: a\n", wantErr: `unknown field "port"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := config.Parse([]byte(tc.yaml), "conf.yaml")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Got(Parse) error %v; want one holding %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Server.Metrics; got.On() != tc.on || got.Addr != tc.addr {
				t.Errorf("Got(metrics) on %v addr %q; want on %v addr %q", got.On(), got.Addr, tc.on, tc.addr)
			}
		})
	}
}
