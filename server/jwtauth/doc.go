// Package jwtauth verifies the JSON Web Tokens (RFC 7519) of per-user
// callers and says which resource each acts for; a [Verifier] is the
// server.Authenticator of keel serve's per-user mode.
//
//	v, err := jwtauth.New(jwtauth.Options{Secret: []byte(os.Getenv("KEEL_JWT_SECRET"))})
//	resource, err := v.Authenticate(ctx, bearerToken)
//
// # What is checked
//
// The signature first: HS256, HS384 or HS512 with the shared secret, or
// RS256/384/512, PS256/384/512, ES256/384/512 or EdDSA (Ed25519) with a
// key of the issuer's JWKS. alg "none" is never accepted, an algorithm
// is accepted only when a key of its kind is configured (so an RSA public
// key can never serve as an HMAC secret), and a key that names its alg
// verifies that alg only. Then the claims: exp is required, exp, nbf and
// iat are checked with [Options].Leeway (30 s by default), iss and aud
// when the options name them. The resource is the string claim
// [Options].ResourceClaim, sub by default.
//
// # Key sets
//
// A JWKS is fetched from an https URL (http on loopback only: anyone on
// the way could swap the keys of a plain http URL) or read from a file,
// on first use or at [Verifier.Prefetch], and kept. It is fetched again
// when it is older than [Options].MaxKeyAge (an hour), and when a token
// names a kid the set does not hold, which is how an issuer's rotated
// keys are picked up; but never more than once per [Options].MinRefetch
// (30 s), so that tokens with made-up key ids cannot make keel hammer the
// issuer. One fetch runs at a time; a failed refetch keeps the keys
// fetched before. Keys of other kinds (encryption keys, unknown key
// types, RSA keys under 2048 bits) are skipped with a warning.
//
// # Why golang-jwt
//
// github.com/golang-jwt/jwt/v5 parses and verifies tokens with no
// dependency of its own; the key sets, which it leaves to its users, are
// a page of code here (jwk.go) on the standard library's crypto.
// lestrrat-go/jwx/v3 would bring its own JWKS cache, at the price of a
// dozen modules.
package jwtauth
