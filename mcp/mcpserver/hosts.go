package mcpserver

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// ErrHost is the error of a host [CheckHost] refuses.
var ErrHost = errors.New("mcpserver: allowed host")

// CheckHost reports whether h can be one of [HandlerOptions].AllowedHosts:
// "*" (any host), a host name such as "keel.example.com", "*." and a
// name (any name below it, such as "*.example.com"), or an IP address,
// without scheme, port or path.
func CheckHost(h string) error {
	bad := func(why string) error { return fmt.Errorf("%w: %q: %s", ErrHost, h, why) }
	switch {
	case h == "*":
		return nil
	case strings.TrimSpace(h) == "":
		return bad("a host cannot be empty")
	case strings.Contains(h, "://"):
		return bad("give the host alone, without a scheme (keel.example.com, not https://keel.example.com)")
	case strings.ContainsAny(h, "/?#@"):
		return bad("give the host alone, without a path")
	}
	if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return nil
	}
	if _, _, err := net.SplitHostPort(h); err == nil {
		return bad("give the host without a port: any port of the host is allowed")
	}
	name := strings.TrimPrefix(h, "*.")
	if len(name) > 253 {
		return bad("a host name has at most 253 characters")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return bad("not a host name: its labels, between dots, are 1 to 63 letters, digits or hyphens, and start and end with a letter or digit")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return bad("not a host name: only letters, digits, hyphens and dots (write an international name in its xn-- form); \"*.\" may start it")
			}
		}
	}
	return nil
}

// hostCheck is the DNS-rebinding check of a handler: a request that
// reached a loopback address under a name that is not loopback's is
// refused unless the name is allowed. It is the SDK's check
// (StreamableHTTPOptions.DisableLocalhostProtection off), with a list of
// names, which the SDK's takes none of.
type hostCheck struct {
	any      bool
	exact    map[string]bool
	suffixes []string // ".example.com" for "*.example.com"
}

// newHostCheck returns the check allowing allowed, each valid by
// [CheckHost], or any host.
func newHostCheck(allowed []string, anyHost bool) (*hostCheck, error) {
	hc := &hostCheck{any: anyHost, exact: make(map[string]bool)}
	for _, h := range allowed {
		if err := CheckHost(h); err != nil {
			return nil, err
		}
		h = strings.ToLower(strings.Trim(h, "[]"))
		switch {
		case h == "*":
			hc.any = true
		case strings.HasPrefix(h, "*."):
			hc.suffixes = append(hc.suffixes, h[1:])
		default:
			hc.exact[h] = true
		}
	}
	return hc, nil
}

// allows reports whether r may be served.
func (hc *hostCheck) allows(r *http.Request) bool {
	if hc.any {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopback(local.String()) || isLoopback(r.Host) {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	return hc.exact[host] || slices.ContainsFunc(hc.suffixes, func(s string) bool { return strings.HasSuffix(host, s) })
}

// isLoopback reports whether addr, a host or host:port, is loopback's:
// "localhost" or a loopback address.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
