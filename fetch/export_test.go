package fetch

import (
	"crypto/tls"
	"net/http"
)

// TrustForTest makes c trust the certificates of cfg, such as an
// httptest TLS server's, so that a test can follow a redirect from https.
func TrustForTest(c *Client, cfg *tls.Config) {
	c.http.Transport.(*http.Transport).TLSClientConfig = cfg
}
