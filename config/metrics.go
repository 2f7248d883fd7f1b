package config

import "net"

// Metrics configures keel serve's Prometheus metrics (server.metrics).
//
// By default they are on, at GET /metrics on the API's own address and
// behind its auth: a scraper sends the shared token as any backend does,
// no other port has to be opened or protected, and a user's token is
// refused (the metrics are the operator's). Addr moves them to a listener
// of their own, without a token, for scrapers that cannot send one: keep
// that address where only the scraper reaches it.
type Metrics struct {
	// Enabled turns the metrics off when false; nil (left out) means on.
	Enabled *bool `yaml:"enabled"`
	// Addr, when not empty, serves GET /metrics there (host:port, such as
	// 127.0.0.1:9464), with no token, instead of on the API's address.
	Addr string `yaml:"addr"`
}

// On reports whether the metrics are on.
func (m Metrics) On() bool { return m.Enabled == nil || *m.Enabled }

// validateMetrics checks server.metrics; add reports a mistake at a key
// below server.
func validateMetrics(m Metrics, add func(path []any, format string, args ...any)) {
	if m.Addr == "" {
		return
	}
	if _, _, err := net.SplitHostPort(m.Addr); err != nil {
		add([]any{"metrics", "addr"}, "%q: write host:port, such as 127.0.0.1:9464, or leave it out to serve /metrics on the API's address", m.Addr)
	}
	if !m.On() {
		add([]any{"metrics", "addr"}, "%q is set but server.metrics.enabled is false: remove one", m.Addr)
	}
}
