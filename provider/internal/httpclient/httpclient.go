// Package httpclient holds the HTTP transport that keel's provider adapters
// share when their caller gives no HTTP client of its own.
//
// http.DefaultTransport keeps at most two idle connections per host. An
// agent answering many users at once calls one model host from many
// goroutines; with HTTP/1.1 (OpenAI-compatible servers, local gateways,
// test servers) every call past the second then dials a new connection
// and throws it away, which under load cost keel's server more CPU than
// its whole agent loop. Files of megabytes go out in large writes rather
// than 4 KiB ones.
package httpclient

import (
	"net/http"
	"time"
)

// MaxIdleConnsPerHost is how many idle connections to one host the shared
// transport keeps for reuse.
const MaxIdleConnsPerHost = 64

var shared = newTransport()

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 4 * MaxIdleConnsPerHost
	t.MaxIdleConnsPerHost = MaxIdleConnsPerHost
	t.IdleConnTimeout = 90 * time.Second
	t.WriteBufferSize = 64 << 10
	return t
}

// Transport returns the transport shared by every adapter built without a
// client of its own, so that their connections are pooled together.
func Transport() *http.Transport { return shared }

// Or returns c, or a new client over [Transport] when c is nil: the
// client of an adapter whose caller may give one.
func Or(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Transport: shared}
}
