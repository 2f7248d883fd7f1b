package jwtauth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/keel-go/keel/server/jwtauth"
)

func TestJWKSAlgorithms(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, jwksJSON(t,
		jwkOf(t, "rsa", "", &rsaKey.PublicKey),
		jwkOf(t, "ec", "ES256", &ecKey.PublicKey),
		jwkOf(t, "ed", "", edKey.Public()),
		map[string]any{"kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"},
		map[string]any{"kty": "oct", "kid": "sym", "k": "c2VjcmV0"},
	))
	v := newVerifier(t, jwtauth.Options{JWKS: srv.URL, Audience: []string{"keel"}})
	c := claims("aud", "keel")
	tests := []struct {
		name, token string
		ok          bool
	}{
		{"RS256", sign(t, jwt.SigningMethodRS256, "rsa", rsaKey, c), true},
		{"PS256", sign(t, jwt.SigningMethodPS256, "rsa", rsaKey, c), true},
		{"ES256", sign(t, jwt.SigningMethodES256, "ec", ecKey, c), true},
		{"EdDSA", sign(t, jwt.SigningMethodEdDSA, "ed", edKey, c), true},
		{"no kid: every fitting key is tried", sign(t, jwt.SigningMethodEdDSA, "", edKey, c), true},
		{"wrong key for the kid", sign(t, jwt.SigningMethodRS256, "rsa", rsaKey2, c), false},
		{"kid of another key type", sign(t, jwt.SigningMethodRS256, "ec", rsaKey, c), false},
		{"wrong audience", sign(t, jwt.SigningMethodRS256, "rsa", rsaKey, claims("aud", "billing")), false},
		{"expired", sign(t, jwt.SigningMethodES256, "ec", ecKey, claims("aud", "keel", "exp", t0.Add(-time.Hour).Unix())), false},
		{"alg none", sign(t, jwt.SigningMethodNone, "rsa", jwt.UnsafeAllowNoneSignatureType, c), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Authenticate(context.Background(), tt.token)
			if tt.ok && (err != nil || got != "alice") {
				t.Fatalf("Got(Authenticate) = %q, %v; want alice", got, err)
			}
			if !tt.ok && !errors.Is(err, jwtauth.ErrInvalidToken) {
				t.Fatalf("Got(Authenticate) = %q, %v; want ErrInvalidToken", got, err)
			}
		})
	}
	if n := v.Fetches(); n != 1 {
		t.Errorf("Got(Fetches) = %d; want the key set fetched once for %d tokens (it has each kid asked for)", n, len(tests))
	}
}

// A key pinned to an algorithm verifies that one only.
func TestJWKSPinnedAlg(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkOf(t, "rsa", "RS256", &rsaKey.PublicKey)))
	v := newVerifier(t, jwtauth.Options{JWKS: srv.URL})
	if _, err := v.Authenticate(context.Background(), sign(t, jwt.SigningMethodPS256, "rsa", rsaKey, claims())); !errors.Is(err, jwtauth.ErrInvalidToken) {
		t.Fatalf("Got(PS256 with a key pinned to RS256) = %v; want ErrInvalidToken", err)
	}
}

// The issuer rotates its keys: a token with a new kid makes the verifier
// fetch the set again and is accepted; the old key's tokens are refused
// once the set no longer holds it.
func TestJWKSRotation(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkOf(t, "old", "", &rsaKey.PublicKey)))
	clk := &clock{now: t0}
	v := newVerifier(t, jwtauth.Options{JWKS: srv.URL, MinRefetch: time.Minute})
	jwtauth.SetClock(v, clk.Now)
	ctx := context.Background()
	oldTok := sign(t, jwt.SigningMethodRS256, "old", rsaKey, claims())
	newTok := sign(t, jwt.SigningMethodRS256, "new", rsaKey2, claims())
	if _, err := v.Authenticate(ctx, oldTok); err != nil {
		t.Fatalf("Got(old key's token) = %v; want accepted", err)
	}
	srv.set(http.StatusOK, jwksJSON(t, jwkOf(t, "new", "", &rsaKey2.PublicKey)))

	// Within MinRefetch of the first fetch, an unknown kid fetches nothing.
	if _, err := v.Authenticate(ctx, newTok); !errors.Is(err, jwtauth.ErrInvalidToken) {
		t.Fatalf("Got(new key's token within MinRefetch) = %v; want refused, the set not yet fetched again", err)
	}
	if got := srv.hits.Load(); got != 1 {
		t.Fatalf("Got(fetches) = %d; want 1: refetches are rate-limited", got)
	}
	clk.add(time.Minute)
	if got, err := v.Authenticate(ctx, newTok); err != nil || got != "alice" {
		t.Fatalf("Got(new key's token after MinRefetch) = %q, %v; want accepted after a refetch", got, err)
	}
	// The old token's kid is no longer in the set; refetching it again so
	// soon is not allowed either.
	if _, err := v.Authenticate(ctx, oldTok); !errors.Is(err, jwtauth.ErrInvalidToken) || !strings.Contains(err.Error(), `kid "old"`) {
		t.Fatalf("Got(old key's token after rotation) = %v; want refused naming kid old", err)
	}
	if got := srv.hits.Load(); got != 2 {
		t.Errorf("Got(fetches) = %d; want 2", got)
	}
}

// A flood of tokens with made-up kids makes at most one fetch per
// MinRefetch, even all at once.
func TestJWKSRefetchRateLimited(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkOf(t, "k1", "", &ecKey.PublicKey)))
	clk := &clock{now: t0}
	v := newVerifier(t, jwtauth.Options{JWKS: srv.URL, MinRefetch: 30 * time.Second})
	jwtauth.SetClock(v, clk.Now)
	if err := v.Prefetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.add(31 * time.Second)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := sign(t, jwt.SigningMethodES256, "made-up-"+string(rune('a'+i%26)), ecKey, claims())
			if _, err := v.Authenticate(context.Background(), tok); !errors.Is(err, jwtauth.ErrInvalidToken) {
				t.Errorf("Got(made-up kid) = %v; want ErrInvalidToken", err)
			}
		}()
	}
	wg.Wait()
	if got := srv.hits.Load(); got != 2 {
		t.Errorf("Got(fetches) = %d; want 2: the prefetch and one refetch for 50 unknown kids", got)
	}
}

// A stale set is fetched again; when that fails, the keys fetched before
// stay in use.
func TestJWKSStaleAndFailing(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkOf(t, "k1", "", edKey.Public())))
	clk := &clock{now: t0}
	v := newVerifier(t, jwtauth.Options{JWKS: srv.URL, MaxKeyAge: time.Hour})
	jwtauth.SetClock(v, clk.Now)
	ctx := context.Background()
	tok := func() string {
		return sign(t, jwt.SigningMethodEdDSA, "k1", edKey, claims("iat", clk.Now().Unix(), "exp", clk.Now().Add(time.Hour).Unix()))
	}
	if _, err := v.Authenticate(ctx, tok()); err != nil {
		t.Fatal(err)
	}
	clk.add(2 * time.Hour)
	srv.set(http.StatusInternalServerError, []byte("down"))
	if got, err := v.Authenticate(ctx, tok()); err != nil || got != "alice" {
		t.Fatalf("Got(Authenticate, refetch failing) = %q, %v; want accepted with the keys fetched before", got, err)
	}
	if got := srv.hits.Load(); got != 2 {
		t.Errorf("Got(fetches) = %d; want 2: the stale set was fetched again", got)
	}
}

// When no fetch ever worked, tokens cannot be checked: the error says the
// keys are unavailable (a 503 for a server), not that the token is bad.
func TestJWKSUnavailable(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, nil)
	srv.set(http.StatusServiceUnavailable, []byte("maintenance"))
	v := newVerifier(t, jwtauth.Options{JWKS: srv.URL})
	if err := v.Prefetch(context.Background()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("Got(Prefetch) = %v; want the fetch's 503", err)
	}
	_, err := v.Authenticate(context.Background(), sign(t, jwt.SigningMethodRS256, "k1", rsaKey, claims()))
	var un interface{ AuthUnavailable() bool }
	if !errors.Is(err, jwtauth.ErrKeysUnavailable) || !errors.As(err, &un) || !un.AuthUnavailable() || errors.Is(err, jwtauth.ErrInvalidToken) {
		t.Fatalf("Got(Authenticate) = %v; want ErrKeysUnavailable with AuthUnavailable()", err)
	}
}

func TestJWKSBadSets(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, body, want string }{
		{"not JSON", "<html>", "not JSON"},
		{"no keys member", `{"key":[]}`, `no "keys"`},
		{"only unusable keys", string(jwksJSON(t, jwkOf(t, "small", "", &small.PublicKey), map[string]any{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"})), "1024 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newJWKSServer(t, []byte(tt.body))
			v := newVerifier(t, jwtauth.Options{JWKS: srv.URL})
			if err := v.Prefetch(context.Background()); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Got(Prefetch) = %v; want an error saying %q", err, tt.want)
			}
		})
	}
}

// A key set in a file is read like one from a URL, and read again when a
// token names a key it does not hold.
func TestJWKSFile(t *testing.T) {
	testKeys(t)
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, jwksJSON(t, jwkOf(t, "a", "", &ecKey.PublicKey)), 0o600); err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: t0}
	for _, src := range []string{path, "file://" + path} {
		v := newVerifier(t, jwtauth.Options{JWKS: src})
		jwtauth.SetClock(v, clk.Now)
		if got, err := v.Authenticate(context.Background(), sign(t, jwt.SigningMethodES256, "a", ecKey, claims())); err != nil || got != "alice" {
			t.Fatalf("Got(Authenticate with %s) = %q, %v; want alice", src, got, err)
		}
	}
	v := newVerifier(t, jwtauth.Options{JWKS: path})
	jwtauth.SetClock(v, clk.Now)
	if err := v.Prefetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, jwksJSON(t, jwkOf(t, "b", "", edKey.Public())), 0o600); err != nil {
		t.Fatal(err)
	}
	clk.add(jwtauth.DefaultMinRefetch)
	if got, err := v.Authenticate(context.Background(), sign(t, jwt.SigningMethodEdDSA, "b", edKey, claims())); err != nil || got != "alice" {
		t.Fatalf("Got(Authenticate after the file changed) = %q, %v; want alice", got, err)
	}
}
