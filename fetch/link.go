package fetch

import (
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// link is a URL that passed [parseLink]: http(s), no credentials, a host
// that is a plain DNS name or an IP address in its usual form.
type link struct {
	u *url.URL
	// host is the host to match and dial: lower-case, without a trailing
	// dot, without the brackets of an IPv6 literal.
	host string
	// ip is the host's address when the host is an IP literal.
	ip netip.Addr
}

// parseLink checks raw the way a download needs it: every rule here
// closes a way to make the allow-list or the address check see a host
// other than the one connected to.
func parseLink(raw string) (link, error) {
	bad := func(detail string) (link, error) {
		return link{}, &Error{Code: CodeBadURL, URL: redact(raw), Detail: detail}
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		// CR and LF could start a header of their own in a client that
		// wrote the URL as is; spaces and tabs are trimmed differently by
		// different parsers.
		return bad("it holds spaces or control characters")
	}
	if strings.ContainsRune(raw, '\\') {
		// Browsers read a backslash as a slash, Go's parser does not:
		// "http://a.example\@b.example" names two hosts.
		return bad("it holds a backslash")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("it does not parse")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return bad("only http and https links are downloaded")
	}
	u.Scheme = scheme
	if u.Opaque != "" || u.Host == "" {
		return bad("it has no host")
	}
	if u.User != nil {
		// "https://files.example.com@evil.example/" is a link to
		// evil.example; credentials have no place in a link anyway.
		return bad("it holds a user name or password")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("its port is not a number from 1 to 65535")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return bad("its port is empty")
	}
	l := link{u: u}
	host := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return bad("its IPv6 address does not parse, or names a zone")
		}
		l.host, l.ip = ip.Unmap().String(), ip
		return l, nil
	}
	host, ok := canonicalHost(host)
	if !ok {
		return bad("its host is not a DNS name of letters, digits and hyphens (write an international name in its xn-- form), nor a dotted-decimal IPv4 address")
	}
	l.host = host
	// The request goes to the name as the allow-list and the dialer read
	// it: "FILES.EXAMPLE.COM." is files.example.com.
	if p := u.Port(); p != "" {
		u.Host = net.JoinHostPort(host, p)
	} else {
		u.Host = host
	}
	if numericLastLabel(host) {
		// A host whose last label is a number is an IPv4 address to
		// browsers and to the C library's resolver, in decimal, octal or
		// hex, whole or in parts: 2130706433, 0177.0.0.1, 0x7f.1 and
		// 127.1 are all 127.0.0.1. Only the dotted-decimal form is taken,
		// so that every reader sees the same address.
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is4() {
			return bad("its host is an IPv4 address in a form other than four decimal numbers")
		}
		l.ip = ip
	}
	return l, nil
}

// canonicalHost returns a DNS host name lower-cased and without its
// trailing dot, and whether it is one: labels of ASCII letters, digits,
// hyphens and underscores, none empty.
func canonicalHost(h string) (string, bool) {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" || len(h) > 253 {
		return "", false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", false
			}
		}
	}
	return h, true
}

// numericLastLabel reports whether h's last label is a number (decimal,
// or hex with 0x), which makes h an IPv4 address in the WHATWG URL
// standard.
func numericLastLabel(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if hex, ok := strings.CutPrefix(last, "0x"); ok {
		return strings.TrimLeft(hex, "0123456789abcdef") == ""
	}
	return last != "" && strings.TrimLeft(last, "0123456789") == ""
}

// redact returns raw without its query string and fragment, which may
// hold a signed link's secret, for errors and logs.
func redact(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	if len(raw) > 300 {
		raw = raw[:300] + "..."
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, raw)
}
