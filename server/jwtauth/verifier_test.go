package jwtauth_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/keel-go/keel/server/jwtauth"
)

func newVerifier(t testing.TB, o jwtauth.Options) *jwtauth.Verifier {
	t.Helper()
	if o.Logger == nil {
		o.Logger = quiet()
	}
	v, err := jwtauth.New(o)
	if err != nil {
		t.Fatal(err)
	}
	jwtauth.SetClock(v, func() time.Time { return t0 })
	return v
}

func TestHMACTokens(t *testing.T) {
	v := newVerifier(t, jwtauth.Options{Secret: secret, Issuer: "https://auth.example.com", Audience: []string{"keel", "keel-dev"}})
	good := func(extra ...any) jwt.MapClaims {
		return claims(append([]any{"iss", "https://auth.example.com", "aud", "keel"}, extra...)...)
	}
	tests := []struct {
		name  string
		token string
		want  string // the resource; "" means refused
		why   string // in the error
	}{
		{"valid", sign(t, jwt.SigningMethodHS256, "", secret, good()), "alice", ""},
		{"HS512", sign(t, jwt.SigningMethodHS512, "", secret, good()), "alice", ""},
		{"second audience", sign(t, jwt.SigningMethodHS256, "", secret, good("aud", []string{"other", "keel-dev"})), "alice", ""},
		{"expired within the leeway", sign(t, jwt.SigningMethodHS256, "", secret, good("exp", t0.Add(-10*time.Second).Unix())), "alice", ""},
		{"alg none", sign(t, jwt.SigningMethodNone, "", jwt.UnsafeAllowNoneSignatureType, good()), "", "signing method none is invalid"},
		{"wrong secret", sign(t, jwt.SigningMethodHS256, "", []byte("another-secret-of-thirty-two-bytes!!"), good()), "", "signature is invalid"},
		{"expired", sign(t, jwt.SigningMethodHS256, "", secret, good("exp", t0.Add(-time.Minute).Unix())), "", "expired"},
		{"not yet valid", sign(t, jwt.SigningMethodHS256, "", secret, good("nbf", t0.Add(time.Minute).Unix())), "", "not valid yet"},
		{"issued in the future", sign(t, jwt.SigningMethodHS256, "", secret, good("iat", t0.Add(time.Hour).Unix())), "", "used before issued"},
		{"no exp", sign(t, jwt.SigningMethodHS256, "", secret, good("exp", nil)), "", "exp claim is required"},
		{"wrong audience", sign(t, jwt.SigningMethodHS256, "", secret, good("aud", "billing")), "", "invalid audience"},
		{"no audience", sign(t, jwt.SigningMethodHS256, "", secret, good("aud", nil)), "", "aud claim is required"},
		{"wrong issuer", sign(t, jwt.SigningMethodHS256, "", secret, good("iss", "https://evil.example.com")), "", "invalid issuer"},
		{"no resource claim", sign(t, jwt.SigningMethodHS256, "", secret, good("sub", nil)), "", `no "sub" claim`},
		{"numeric resource claim", sign(t, jwt.SigningMethodHS256, "", secret, good("sub", 42)), "", `no "sub" claim`},
		{"garbage", "not a token", "", "malformed"},
		{"two segments", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0", "", "malformed"},
		{"bad base64", "eyJhbGciOiJIUzI1NiJ9.!!!.abc", "", "malformed"},
		{"empty", "", "", "malformed"},
		{"too long", strings.Repeat("a", jwtauth.MaxTokenBytes+1), "", "over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Authenticate(context.Background(), tt.token)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Fatalf("Got(Authenticate) = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil || !errors.Is(err, jwtauth.ErrInvalidToken) || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("Got(Authenticate) = %q, %v; want ErrInvalidToken saying %q", got, err, tt.why)
			}
			if errors.Is(err, jwtauth.ErrKeysUnavailable) {
				t.Errorf("Got(Authenticate) error %v; want it not to be ErrKeysUnavailable", err)
			}
		})
	}
}

func TestResourceClaim(t *testing.T) {
	v := newVerifier(t, jwtauth.Options{Secret: secret, ResourceClaim: "https://example.com/user"})
	tok := sign(t, jwt.SigningMethodHS256, "", secret, claims("https://example.com/user", "u-17"))
	if got, err := v.Authenticate(context.Background(), tok); err != nil || got != "u-17" {
		t.Fatalf("Got(Authenticate) = %q, %v; want u-17 from the configured claim", got, err)
	}
}

// A token whose HMAC key is the issuer's public key, the classic
// algorithm confusion, is refused: HMAC is not on without a secret.
func TestAlgorithmConfusion(t *testing.T) {
	testKeys(t)
	srv := newJWKSServer(t, jwksJSON(t, jwkOf(t, "k1", "", &rsaKey.PublicKey)))
	v := newVerifier(t, jwtauth.Options{JWKS: srv.URL})
	pubBytes := rsaKey.N.Bytes()
	tok := sign(t, jwt.SigningMethodHS256, "k1", pubBytes, claims())
	if got, err := v.Authenticate(context.Background(), tok); !errors.Is(err, jwtauth.ErrInvalidToken) {
		t.Fatalf("Got(Authenticate HS256 with the public key) = %q, %v; want ErrInvalidToken", got, err)
	}
	// An RS256 token checked against the secret only is refused too.
	hv := newVerifier(t, jwtauth.Options{Secret: secret})
	tok = sign(t, jwt.SigningMethodRS256, "k1", rsaKey, claims())
	if got, err := hv.Authenticate(context.Background(), tok); !errors.Is(err, jwtauth.ErrInvalidToken) {
		t.Fatalf("Got(Authenticate RS256 without a JWKS) = %q, %v; want ErrInvalidToken", got, err)
	}
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		name string
		o    jwtauth.Options
		want string
	}{
		{"nothing", jwtauth.Options{}, "give a secret"},
		{"short secret", jwtauth.Options{Secret: []byte("short")}, "at least 32"},
		{"plain http beyond loopback", jwtauth.Options{JWKS: "http://auth.example.com/jwks.json"}, "use https"},
		{"unknown scheme", jwtauth.Options{JWKS: "ftp://auth.example.com/jwks.json"}, "https URL"},
		{"URL without host", jwtauth.Options{JWKS: "https:///jwks.json"}, "no host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jwtauth.New(tt.o)
			if !errors.Is(err, jwtauth.ErrOptions) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Got(New) = %v; want ErrOptions saying %q", err, tt.want)
			}
		})
	}
}
