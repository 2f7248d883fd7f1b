package dockersandbox

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The engine API versions this package speaks. Debian 12's docker.io
// (20.10) speaks 1.41 at most; engines from 29 on refuse anything older
// than 1.44. Every request and answer this package uses has the same shape
// from 1.41 to 1.47, so the engine's own version is used when it lies in
// that range, and the newest of the range when the engine is newer.
const (
	minAPIVersion = "1.41"
	maxAPIVersion = "1.47"
)

// DefaultHost is the engine used when DOCKER_HOST is not set.
const DefaultHost = "unix:///var/run/docker.sock"

// The environment variables that name the engine, as the docker command
// reads them.
const (
	EnvHost       = "DOCKER_HOST"
	EnvTLSVerify  = "DOCKER_TLS_VERIFY"
	EnvCertPath   = "DOCKER_CERT_PATH"
	EnvAPIVersion = "DOCKER_API_VERSION"
)

// ErrEngineUnreachable reports that no engine answered at the address.
var ErrEngineUnreachable = errors.New("dockersandbox: no Docker engine answers")

// Engine is a client of one Docker engine's HTTP API, over a unix socket
// or TCP (with TLS). It speaks the API version it agreed with the engine
// when it connected. An Engine is safe for concurrent use.
type Engine struct {
	host    string // as given, for messages
	base    string // scheme and host of request URLs
	dial    func(ctx context.Context) (net.Conn, error)
	client  *http.Client
	version string
}

// APIError is an answer of the engine outside 2xx.
type APIError struct {
	// Status is the HTTP status code, such as 404 or 409.
	Status int
	// Message is the engine's own message.
	Message string
}

// Error returns "engine answered STATUS: MESSAGE".
func (e *APIError) Error() string {
	return fmt.Sprintf("engine answered %d: %s", e.Status, e.Message)
}

// isStatus reports whether err is an engine answer with the status code.
func isStatus(err error, code int) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == code
}

// Connect returns a client of the engine at host, such as
// "unix:///var/run/docker.sock" or "tcp://10.0.0.5:2376"; "" means
// $DOCKER_HOST, else [DefaultHost]. Over TCP, TLS is used when
// DOCKER_TLS_VERIFY or DOCKER_CERT_PATH is set, with ca.pem, cert.pem and
// key.pem from DOCKER_CERT_PATH (default ~/.docker); the engine's
// certificate is always verified against ca.pem. The API version is the
// engine's, within what this package speaks, unless DOCKER_API_VERSION
// pins one. An engine that does not answer is an error wrapping
// [ErrEngineUnreachable] that says where keel looked.
func Connect(ctx context.Context, host string) (*Engine, error) {
	host = cmp.Or(host, strings.TrimSpace(os.Getenv(EnvHost)), DefaultHost)
	e, err := newEngine(host)
	if err != nil {
		return nil, fmt.Errorf("dockersandbox: connect to %s: %w", host, err)
	}
	if err := e.negotiate(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

func newEngine(host string) (*Engine, error) {
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("%s: write unix:///path/to/docker.sock or tcp://host:port", EnvHost)
	}
	e := &Engine{host: host}
	var dialer net.Dialer
	switch u.Scheme {
	case "unix":
		path := u.Path
		if path == "" {
			return nil, fmt.Errorf("%s %q names no socket", EnvHost, host)
		}
		e.base = "http://docker"
		e.dial = func(ctx context.Context) (net.Conn, error) { return dialer.DialContext(ctx, "unix", path) }
	case "tcp":
		if u.Host == "" {
			return nil, fmt.Errorf("%s %q names no host:port", EnvHost, host)
		}
		addr := u.Host
		cfg, err := tlsFromEnv(u.Hostname())
		if err != nil {
			return nil, err
		}
		if cfg == nil {
			e.base = "http://" + addr
			e.dial = func(ctx context.Context) (net.Conn, error) { return dialer.DialContext(ctx, "tcp", addr) }
			break
		}
		e.base = "https://" + addr
		e.dial = func(ctx context.Context) (net.Conn, error) {
			d := tls.Dialer{NetDialer: &dialer, Config: cfg}
			return d.DialContext(ctx, "tcp", addr)
		}
	default:
		return nil, fmt.Errorf("%s %q: keel speaks to engines over unix:// or tcp://", EnvHost, host)
	}
	e.client = &http.Client{Transport: &http.Transport{
		DialContext:         func(ctx context.Context, _, _ string) (net.Conn, error) { return e.dial(ctx) },
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		// The dial already speaks TLS where needed.
		DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return e.dial(ctx) },
	}}
	return e, nil
}

// tlsFromEnv returns the TLS configuration DOCKER_TLS_VERIFY and
// DOCKER_CERT_PATH ask for, or nil when they ask for none.
func tlsFromEnv(serverName string) (*tls.Config, error) {
	dir := os.Getenv(EnvCertPath)
	if os.Getenv(EnvTLSVerify) == "" && dir == "" {
		return nil, nil
	}
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("%s is not set and there is no home directory to find ~/.docker in", EnvCertPath)
		}
		dir = filepath.Join(home, ".docker")
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		return nil, fmt.Errorf("TLS: %w (set %s to the directory of ca.pem, cert.pem and key.pem)", err, EnvCertPath)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("TLS: %s holds no PEM certificate", filepath.Join(dir, "ca.pem"))
	}
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	if err != nil {
		return nil, fmt.Errorf("TLS: client certificate: %w", err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, ServerName: serverName, MinVersion: tls.VersionTLS12}, nil
}

// negotiate agrees on the API version: the engine's, capped at what this
// package speaks, or the one DOCKER_API_VERSION pins.
func (e *Engine) negotiate(ctx context.Context) error {
	resp, err := e.send(ctx, http.MethodGet, "/_ping", nil, nil, "")
	if err != nil {
		return fmt.Errorf("%w at %s: %v (start dockerd, or set %s to the engine's address)", ErrEngineUnreachable, e.host, err, EnvHost)
	}
	drain(resp)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w at %s: /_ping answered %s", ErrEngineUnreachable, e.host, resp.Status)
	}
	if pin := strings.TrimSpace(os.Getenv(EnvAPIVersion)); pin != "" {
		if !validVersion(pin) {
			return fmt.Errorf("dockersandbox: %s %q: write a version such as %s", EnvAPIVersion, pin, minAPIVersion)
		}
		e.version = pin
		return nil
	}
	server := resp.Header.Get("Api-Version")
	switch {
	case !validVersion(server):
		return fmt.Errorf("dockersandbox: the engine at %s gives no API version (%q)", e.host, server)
	case versionLess(server, minAPIVersion):
		return fmt.Errorf("dockersandbox: the engine at %s speaks API %s, older than %s (Docker 20.10): upgrade it", e.host, server, minAPIVersion)
	case versionLess(maxAPIVersion, server):
		e.version = maxAPIVersion
	default:
		e.version = server
	}
	return nil
}

// Host returns the engine's address as given.
func (e *Engine) Host() string { return e.host }

// APIVersion returns the API version agreed with the engine.
func (e *Engine) APIVersion() string { return e.version }

func validVersion(v string) bool {
	major, minor, ok := strings.Cut(v, ".")
	_, err1 := strconv.Atoi(major)
	_, err2 := strconv.Atoi(minor)
	return ok && err1 == nil && err2 == nil
}

// versionLess compares two valid "major.minor" versions.
func versionLess(a, b string) bool {
	am, an, _ := strings.Cut(a, ".")
	bm, bn, _ := strings.Cut(b, ".")
	x, _ := strconv.Atoi(am)
	y, _ := strconv.Atoi(bm)
	if x != y {
		return x < y
	}
	x, _ = strconv.Atoi(an)
	y, _ = strconv.Atoi(bn)
	return x < y
}

// send makes one request; path is unversioned ("/_ping") or versioned by
// the caller. It returns any answer; only transport failures are errors.
func (e *Engine) send(ctx context.Context, method, path string, query url.Values, body io.Reader, contentType string) (*http.Response, error) {
	u := e.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := e.client.Do(req)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		// The URL is keel's own placeholder for a socket: what failed is
		// the connection.
		err = ue.Err
	}
	return resp, err
}

// do makes a request to the versioned API and returns the answer when it
// is 2xx (or 304), else an [*APIError].
func (e *Engine) do(ctx context.Context, method, path string, query url.Values, body io.Reader, contentType string) (*http.Response, error) {
	resp, err := e.send(ctx, method, "/v"+e.version+path, query, body, contentType)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w at %s: %v", ErrEngineUnreachable, e.host, err)
	}
	if resp.StatusCode/100 == 2 || resp.StatusCode == http.StatusNotModified {
		return resp, nil
	}
	defer drain(resp)
	return nil, apiError(resp)
}

// apiError reads the engine's error body, {"message": "..."}.
func apiError(resp *http.Response) *APIError {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &body) // a body that is not JSON is the message itself
	msg := cmp.Or(body.Message, strings.TrimSpace(string(raw)), http.StatusText(resp.StatusCode))
	return &APIError{Status: resp.StatusCode, Message: msg}
}

// call sends in as JSON (when not nil) and decodes a JSON answer into out
// (when not nil).
func (e *Engine) call(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body io.Reader
	ct := ""
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body, ct = bytes.NewReader(raw), "application/json"
	}
	resp, err := e.do(ctx, method, path, query, body, ct)
	if err != nil {
		return err
	}
	defer drain(resp)
	if out == nil || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode the engine's answer to %s %s: %w", method, path, err)
	}
	return nil
}

// drain reads what is left of a small answer, so that its connection can
// be used again, and closes it.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}
