package jwtauth_test

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/keel-go/keel/server/jwtauth"
)

// BenchmarkAuthenticate is the verification of one bearer token, as every
// request in per-user mode pays it: HS256 with a secret, and ES256, RS256
// and EdDSA with a JWKS served over HTTP, whose fetches are reported (one
// for the whole run: the set is cached).
func BenchmarkAuthenticate(b *testing.B) {
	testKeys(b)
	c := claims("aud", "keel", "iss", "https://auth.example.com", "exp", time.Now().Add(time.Hour).Unix(), "iat", time.Now().Unix())
	opts := jwtauth.Options{Issuer: "https://auth.example.com", Audience: []string{"keel"}, Logger: quiet()}
	b.Run("HS256", func(b *testing.B) {
		o := opts
		o.Secret = secret
		v := must(jwtauth.New(o))
		tok := sign(b, jwt.SigningMethodHS256, "", secret, c)
		benchVerify(b, v, tok)
	})
	srv := newJWKSServer(b, jwksJSON(b, jwkOf(b, "rsa", "", &rsaKey.PublicKey), jwkOf(b, "ec", "", &ecKey.PublicKey), jwkOf(b, "ed", "", edKey.Public())))
	for _, tt := range []struct {
		name string
		m    jwt.SigningMethod
		kid  string
		key  any
	}{
		{"ES256", jwt.SigningMethodES256, "ec", ecKey},
		{"RS256", jwt.SigningMethodRS256, "rsa", rsaKey},
		{"EdDSA", jwt.SigningMethodEdDSA, "ed", edKey},
	} {
		b.Run(tt.name, func(b *testing.B) {
			o := opts
			o.JWKS = srv.URL
			v := must(jwtauth.New(o))
			benchVerify(b, v, sign(b, tt.m, tt.kid, tt.key, c))
			b.ReportMetric(float64(v.Fetches()), "jwks-fetches")
		})
	}
}

func benchVerify(b *testing.B, v *jwtauth.Verifier, tok string) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Authenticate(ctx, tok); err != nil {
			b.Fatal(err)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
