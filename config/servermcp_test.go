package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/keel-go/keel/config"
)

// server.mcp.allowedHosts: the names /mcp answers under besides
// loopback's; each mistake named with its line, all of them at once.
func TestServerMCPSettings(t *testing.T) {
	tests := []struct {
		name, yaml string
		hosts      []string
		wantErrs   []string
	}{
		{name: "left out", yaml: "agents:\n  - id: a\n"},
		{name: "names", yaml: "server:\n  mcp:\n    allowedHosts: [keel.example.com, '*.internal.example', 10.0.0.7, '*']\nagents:\n  - id: a\n",
			hosts: []string{"keel.example.com", "*.internal.example", "10.0.0.7", "*"}},
		{name: "a URL, a port and a path", yaml: "server:\n  mcp:\n    allowedHosts:\n      - keel.example.com\n      - https://keel.example.com\n      - keel.example.com:443\n      - keel.example.com/mcp\nagents:\n  - id: a\n",
			wantErrs: []string{
				`conf.yaml:5: server.mcp.allowedHosts[1]: "https://keel.example.com": give the host alone, without a scheme`,
				`conf.yaml:6: server.mcp.allowedHosts[2]: "keel.example.com:443": give the host without a port`,
				`conf.yaml:7: server.mcp.allowedHosts[3]: "keel.example.com/mcp": give the host alone, without a path`,
			}},
		{name: "empty", yaml: "server:\n  mcp:\n    allowedHosts: ['']\nagents:\n  - id: a\n",
			wantErrs: []string{`conf.yaml:3: server.mcp.allowedHosts[0]: "": a host cannot be empty`}},
		{name: "not a name", yaml: "server:\n  mcp:\n    allowedHosts: [keel_1.example.com]\nagents:\n  - id: a\n",
			wantErrs: []string{`conf.yaml:3: server.mcp.allowedHosts[0]: "keel_1.example.com": not a host name`}},
		{name: "one host, not a list", yaml: "server:\n  mcp:\n    allowedHosts: keel.example.com\nagents:\n  - id: a\n",
			wantErrs: []string{"conf.yaml:3"}},
		{name: "unknown field", yaml: "server:\n  mcp: {allowedHost: [keel.example.com]}\nagents:\n  - id: a\n",
			wantErrs: []string{`unknown field "allowedHost"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := config.Parse([]byte(tc.yaml), "conf.yaml")
			if len(tc.wantErrs) > 0 {
				var ce *config.Error
				if !errors.As(err, &ce) {
					t.Fatalf("Got(Parse) error %v; want a *config.Error", err)
				}
				for _, want := range tc.wantErrs {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("Got(Parse) error %v; want one holding %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Server.MCP.AllowedHosts; strings.Join(got, " ") != strings.Join(tc.hosts, " ") {
				t.Errorf("Got(allowedHosts) = %q; want %q", got, tc.hosts)
			}
		})
	}
}
