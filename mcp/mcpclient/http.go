package mcpclient

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport sets the server's configured headers on every request.
type headerTransport struct {
	base    http.RoundTripper
	headers http.Header
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header[k] = v
	}
	return t.base.RoundTrip(r)
}

// checkURL checks a streamable-HTTP server's URL.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url %q: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("url %q: write an http:// or https:// URL, such as https://mcp.example.com/mcp", raw)
	}
	return nil
}

// httpHeaders expands the configured headers.
func httpHeaders(headers map[string]string, lookup func(string) (string, bool)) (http.Header, error) {
	h := make(http.Header, len(headers))
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		v, err := Expand(headers[name], lookup)
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", name, err)
		}
		h.Set(name, v)
	}
	return h, nil
}

// httpTransport returns the transport of a streamable-HTTP server.
func httpTransport(cfg *Config, headers http.Header) sdk.Transport {
	base := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		base = cfg.HTTPClient.Transport
	}
	client := &http.Client{Transport: &headerTransport{base: base, headers: headers}}
	if cfg.HTTPClient != nil {
		client.Jar, client.CheckRedirect = cfg.HTTPClient.Jar, cfg.HTTPClient.CheckRedirect
	}
	return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxEventSize: MaxMessageBytes}
}
