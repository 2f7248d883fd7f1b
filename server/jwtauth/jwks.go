package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxJWKSBytes bounds what is read of a key set: sets are a few kilobytes.
const maxJWKSBytes = 1 << 20

// keySet is one fetch of a JWKS.
type keySet struct {
	keys    []key
	fetched time.Time
}

// find returns the keys that may verify a token with kid and alg: those of
// that kid, or every fitting key when the token names none.
func (s *keySet) find(kid, alg string) []key {
	if s == nil {
		return nil
	}
	var out []key
	for _, k := range s.keys {
		if (kid == "" || k.kid == kid) && k.fits(alg) {
			out = append(out, k)
		}
	}
	return out
}

// jwks keeps a key set fetched from a URL or read from a file. The set is
// fetched on first use and again when it is older than maxAge, or when a
// token names a key it does not hold (the issuer rotated its keys) — but
// never more than once per minGap, so tokens with made-up key ids cannot
// make keel hammer the issuer. One fetch runs at a time; callers that need
// it meanwhile wait for it. A failed refetch keeps the keys fetched
// before. It is safe for concurrent use.
type jwks struct {
	source string
	load   func(ctx context.Context) ([]byte, error)
	maxAge time.Duration
	minGap time.Duration
	now    func() time.Time
	logger *slog.Logger

	mu       sync.Mutex
	set      *keySet
	tried    time.Time     // when the last fetch began; zero before the first
	lastErr  error         // the last fetch's error, nil after a success
	inflight chan struct{} // closed when the running fetch ends
	fetches  atomic.Int64
}

func newJWKS(source string, client *http.Client) (*jwks, error) {
	j := &jwks{source: source}
	u, err := url.Parse(source)
	switch {
	case err == nil && (u.Scheme == "https" || u.Scheme == "http"):
		if u.Host == "" {
			return nil, fmt.Errorf("jwtauth: JWKS URL %q has no host", source)
		}
		if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("jwtauth: JWKS URL %q: use https; anyone on the way could swap the keys of a plain http URL (http is accepted on loopback only)", source)
		}
		j.load = func(ctx context.Context) ([]byte, error) { return fetchURL(ctx, client, source) }
	case err == nil && u.Scheme == "file":
		path := u.Path
		j.load = func(context.Context) ([]byte, error) { return readFile(path) }
	case err == nil && u.Scheme != "" && len(u.Scheme) > 1:
		return nil, fmt.Errorf("jwtauth: JWKS %q: give an https URL, a file:// URL or a file path", source)
	default:
		j.load = func(context.Context) ([]byte, error) { return readFile(source) }
	}
	return j, nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func fetchURL(ctx context.Context, client *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json, application/jwk-set+json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if len(data) > maxJWKSBytes {
		return nil, fmt.Errorf("GET %s: the key set is over %d bytes", u, maxJWKSBytes)
	}
	return data, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxJWKSBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxJWKSBytes {
		return nil, fmt.Errorf("%s is over %d bytes; is it a JWKS?", path, maxJWKSBytes)
	}
	return data, nil
}

// keys returns the keys that may verify a token with kid and alg,
// fetching the set first when there is none yet or it is stale, and again
// when it holds no such key.
func (j *jwks) keys(ctx context.Context, kid, alg string) ([]key, error) {
	j.mu.Lock()
	set := j.set
	stale := set == nil || j.now().Sub(set.fetched) >= j.maxAge
	j.mu.Unlock()
	var err error
	if stale {
		set, err = j.refresh(ctx)
	}
	if found := set.find(kid, alg); len(found) > 0 {
		return found, nil
	}
	if !stale {
		// A key the set does not hold: the issuer may have rotated.
		set, err = j.refresh(ctx)
		if found := set.find(kid, alg); len(found) > 0 {
			return found, nil
		}
	}
	if set == nil {
		if err == nil {
			err = errNoFetch
		}
		return nil, &unavailableError{err: err}
	}
	if kid != "" {
		return nil, &keyError{msg: fmt.Sprintf("no %s key with kid %q in the issuer's key set", alg, kid)}
	}
	return nil, &keyError{msg: fmt.Sprintf("no %s key in the issuer's key set", alg)}
}

// refresh fetches the set, unless a fetch began less than minGap ago: it
// then returns the set as it is. It returns the set to use (nil when no
// fetch ever worked) and the error of the fetch, if it failed.
func (j *jwks) refresh(ctx context.Context) (*keySet, error) {
	j.mu.Lock()
	if ch := j.inflight; ch != nil {
		j.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.set, j.lastErr
	}
	if !j.tried.IsZero() && j.now().Sub(j.tried) < j.minGap {
		defer j.mu.Unlock()
		return j.set, j.lastErr
	}
	ch := make(chan struct{})
	j.inflight, j.tried = ch, j.now()
	j.mu.Unlock()

	// The fetch is not the caller's: another caller may wait for it, so
	// it is not cut short when this one goes away (the HTTP client's
	// timeout bounds it).
	set, err := j.fetch(context.WithoutCancel(ctx))

	j.mu.Lock()
	defer j.mu.Unlock()
	j.inflight, j.lastErr = nil, err
	if err == nil {
		j.set = set
	} else if j.set != nil {
		j.logger.Warn("jwtauth: refetching the JWKS failed; the keys fetched before stay in use", "jwks", j.source, "err", err)
	}
	close(ch)
	return j.set, err
}

func (j *jwks) fetch(ctx context.Context) (*keySet, error) {
	j.fetches.Add(1)
	data, err := j.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("jwtauth: fetch the JWKS: %w", err)
	}
	keys, skipped, err := parseJWKS(data)
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		j.logger.Warn("jwtauth: JWKS keys skipped", "jwks", j.source, "skipped", strings.Join(skipped, "; "))
	}
	return &keySet{keys: keys, fetched: j.now()}, nil
}

// unavailableError is a token that could not be checked because no key set
// could be fetched: not the caller's fault, so the server answers 503.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string {
	return fmt.Sprintf("%v: %v", ErrKeysUnavailable, e.err)
}

func (e *unavailableError) Unwrap() []error { return []error{ErrKeysUnavailable, e.err} }

// AuthUnavailable reports true: the server tells this error from a bad
// token by it.
func (e *unavailableError) AuthUnavailable() bool { return true }

var _ interface{ AuthUnavailable() bool } = (*unavailableError)(nil)

var errNoFetch = errors.New("no fetch has worked yet")
