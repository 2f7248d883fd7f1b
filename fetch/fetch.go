package fetch

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/keel-go/keel"
)

// Defaults of [Options].
const (
	// DefaultMaxSize caps a download: 10 MiB, the cap of files keel puts in
	// a sandbox.
	DefaultMaxSize = 10 << 20
	// DefaultTimeout bounds a whole download, redirects included.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxRedirects is how many redirects a download follows.
	DefaultMaxRedirects = 5
	// DefaultUserAgent is the User-Agent of downloads.
	DefaultUserAgent = "keel (file download)"
)

// ErrInvalidOptions is wrapped by the errors of [New].
var ErrInvalidOptions = errors.New("fetch: invalid options")

// Options configure a [Client].
type Options struct {
	// AllowHosts are the hosts links may be downloaded from: host names
	// (files.example.com), IP addresses (203.0.113.7, ::1), "*.example.com"
	// for every subdomain of example.com (not example.com itself), and "*"
	// for every host. Names are compared without regard to case or a
	// trailing dot; ports do not count. Empty allows none: every link is
	// refused with [CodeHostNotAllowed] and nothing is sent.
	//
	// A host allowed only by a wildcard is downloaded from only at a
	// public address (see [Public]): a name that resolves to a loopback,
	// private, link-local or cloud-metadata address is refused at connect
	// time, on every redirect too. A host named exactly (a name, or the
	// IP address itself) may be at any address: that is how to allow a
	// server on the local network.
	AllowHosts []string
	// MaxSize caps a download in bytes; 0 means [DefaultMaxSize]. Bytes
	// are counted as they are read, whatever Content-Length says; one byte
	// over is [CodeTooLarge].
	MaxSize int64
	// Timeout bounds each download, redirects included; 0 means
	// [DefaultTimeout].
	Timeout time.Duration
	// MaxRedirects is how many redirects a download follows; 0 means
	// [DefaultMaxRedirects], a negative value none.
	MaxRedirects int
	// LookupHost, when not nil, resolves host names instead of the system
	// resolver, such as for a resolver of one's own or tests. Whatever it
	// answers is checked as the system's answers are, at connect time.
	LookupHost func(ctx context.Context, host string) ([]netip.Addr, error)
	// UserAgent is sent with each request; "" means [DefaultUserAgent].
	UserAgent string
}

// Client downloads files given by link, by the rules of its [Options].
// It never uses a proxy (a proxy would connect to hosts the address
// check never saw), sends no cookies or credentials, and follows
// redirects only to links that pass the same rules. It is safe for
// concurrent use; one Client shares its connections between downloads.
type Client struct {
	allow        allowList
	maxSize      int64
	timeout      time.Duration
	maxRedirects int
	lookup       func(ctx context.Context, host string) ([]netip.Addr, error)
	userAgent    string
	http         *http.Client
}

// New returns a client for opts. An AllowHosts entry that is not a host
// name, wildcard or IP address, or a negative MaxSize or Timeout, is an
// error wrapping [ErrInvalidOptions].
func New(opts Options) (*Client, error) {
	al, err := newAllowList(opts.AllowHosts)
	if err != nil {
		return nil, err
	}
	if opts.MaxSize < 0 || opts.Timeout < 0 {
		return nil, fmt.Errorf("%w: MaxSize and Timeout cannot be negative", ErrInvalidOptions)
	}
	c := &Client{allow: al, maxSize: opts.MaxSize, timeout: opts.Timeout, maxRedirects: opts.MaxRedirects,
		lookup: opts.LookupHost, userAgent: opts.UserAgent}
	c.maxSize = cmp.Or(c.maxSize, DefaultMaxSize)
	c.timeout = cmp.Or(c.timeout, DefaultTimeout)
	switch {
	case c.maxRedirects == 0:
		c.maxRedirects = DefaultMaxRedirects
	case c.maxRedirects < 0:
		c.maxRedirects = 0
	}
	c.userAgent = cmp.Or(c.userAgent, DefaultUserAgent)
	c.http = &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           c.dial,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          16,
			IdleConnTimeout:       30 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ExpectContinueTimeout: time.Second,
		},
		CheckRedirect: c.checkRedirect,
	}
	return c, nil
}

// MaxSize returns the size cap of a download, in bytes.
func (c *Client) MaxSize() int64 { return c.maxSize }

// Timeout returns how long a download may take.
func (c *Client) Timeout() time.Duration { return c.timeout }

// Check reports, without sending anything, whether rawURL would be
// downloaded by its form and host: nil, or an [*Error] with
// [CodeBadURL] or [CodeHostNotAllowed]. The address check comes only at
// connect time.
func (c *Client) Check(rawURL string) error {
	_, err := c.checkLink(rawURL)
	return err
}

func (c *Client) checkLink(rawURL string) (link, error) {
	l, err := parseLink(rawURL)
	if err != nil {
		return link{}, err
	}
	if !c.allow.allows(l.host) {
		detail := ""
		if c.allow.empty() {
			detail = "no host is allowed"
		}
		return link{}, &Error{Code: CodeHostNotAllowed, URL: redact(rawURL), Host: l.host, Detail: detail}
	}
	return l, nil
}

// File is a downloaded file.
type File struct {
	Data []byte
	// MediaType is the server's Content-Type, normalised; "" when it sent
	// none.
	MediaType string
	// URL is where the file came from, after redirects, without its query
	// string.
	URL string
}

// Get downloads rawURL, a file of type mediaType ("" when unknown),
// which the server's Content-Type must match (see [MediaTypeMatches]).
// Every failure is an [*Error] but the end of ctx, which is returned as
// is: the caller is stopping, and the link is not to blame.
func (c *Client) Get(ctx context.Context, rawURL, mediaType string) (*File, error) {
	l, err := c.checkLink(rawURL)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(dctx, http.MethodGet, l.u.String(), nil)
	if err != nil {
		return nil, &Error{Code: CodeBadURL, URL: redact(rawURL), Err: err}
	}
	req.Header.Set("User-Agent", c.userAgent)
	accept := keel.NormalizeMediaType(mediaType)
	accept = cmp.Or(accept, "*/*")
	req.Header.Set("Accept", accept)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.failure(ctx, dctx, rawURL, l.host, err)
	}
	defer resp.Body.Close()
	final := redact(resp.Request.URL.String())
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.StatusCode == http.StatusPartialContent {
		return nil, &Error{Code: CodeStatus, URL: final, Host: resp.Request.URL.Hostname(), Status: resp.StatusCode}
	}
	got := keel.NormalizeMediaType(resp.Header.Get("Content-Type"))
	if !MediaTypeMatches(mediaType, got) {
		return nil, &Error{Code: CodeMediaType, URL: final, MediaType: got, Want: keel.NormalizeMediaType(mediaType)}
	}
	tooLarge := &Error{Code: CodeTooLarge, URL: final, Limit: c.maxSize}
	if resp.ContentLength > c.maxSize {
		return nil, tooLarge // said so itself: no need to read it
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	// One byte past the cap tells a file over it from one exactly at it.
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, c.maxSize+1))
	if err != nil {
		return nil, c.failure(ctx, dctx, rawURL, l.host, err)
	}
	if n > c.maxSize {
		return nil, tooLarge
	}
	return &File{Data: buf.Bytes(), MediaType: got, URL: final}, nil
}

// failure classifies an error of the request or of reading its body.
// ctx is the caller's, dctx the download's own, with the timeout.
func (c *Client) failure(ctx, dctx context.Context, rawURL, host string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if fe, ok := errors.AsType[*Error](err); ok {
		return fe // refused by the rules, at a redirect or at connect time
	}
	if errors.Is(err, context.DeadlineExceeded) || dctx.Err() != nil {
		return &Error{Code: CodeTimeout, URL: redact(rawURL), Host: host, Detail: "it took over " + c.timeout.String()}
	}
	return &Error{Code: CodeFailed, URL: redact(rawURL), Host: host, Err: err}
}

// checkRedirect applies the link rules to each redirect.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.maxRedirects {
		return &Error{Code: CodeBadRedirect, URL: redact(via[0].URL.String()), Detail: fmt.Sprintf("more than %d redirects", c.maxRedirects)}
	}
	target := req.URL.String()
	if _, err := c.checkLink(target); err != nil {
		fe, _ := errors.AsType[*Error](err)
		detail := "to a link that is not one keel downloads"
		if fe.Code == CodeHostNotAllowed {
			detail = fmt.Sprintf("to host %q, which is not allowed", fe.Host)
		}
		return &Error{Code: CodeBadRedirect, URL: redact(target), Host: fe.Host, Detail: detail}
	}
	if prev := via[len(via)-1].URL; prev.Scheme == "https" && req.URL.Scheme == "http" {
		return &Error{Code: CodeBadRedirect, URL: redact(target), Detail: "from https to http"}
	}
	return nil
}

// dial connects to addr ("host:port") for the transport. The address is
// checked at connect time by the dialer's Control, on the address the
// connection is made to, so that a name that resolves to a public address
// when checked and to a private one when connected (DNS rebinding) is
// still refused.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		host = ip.Unmap().String()
	} else if h, ok := canonicalHost(host); ok {
		// A redirect's target is dialled as written: its host is read
		// as the allow-list reads it.
		host = h
	}
	exact := c.allow.exactly(host)
	d := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return &Error{Code: CodePrivateAddress, Host: host, Address: address, Detail: "the address does not parse"}
		}
		if !exact && !Public(ap.Addr()) {
			return &Error{Code: CodePrivateAddress, Host: host, Address: ap.Addr().Unmap().String(),
				Detail: "only hosts allowed by name may be at such an address"}
		}
		return nil
	}}
	if c.lookup == nil {
		return d.DialContext(ctx, network, addr)
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return d.DialContext(ctx, network, addr)
	}
	ips, err := c.lookup(ctx, host)
	if err != nil {
		return nil, &net.DNSError{Err: err.Error(), Name: host}
	}
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no address", Name: host, IsNotFound: true}
	}
	var first error
	for _, ip := range ips {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}
