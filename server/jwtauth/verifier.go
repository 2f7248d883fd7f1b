package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Defaults of [Options].
const (
	// DefaultResourceClaim is the claim that names the caller's resource.
	DefaultResourceClaim = "sub"
	// DefaultLeeway is how far exp, nbf and iat may be off: clocks of the
	// issuer and of keel's host are never quite the same.
	DefaultLeeway = 30 * time.Second
	// DefaultMaxKeyAge is how long a fetched key set is used before it is
	// fetched again.
	DefaultMaxKeyAge = time.Hour
	// DefaultMinRefetch is the shortest time between two fetches of the
	// key set, however many tokens name keys it does not hold.
	DefaultMinRefetch = 30 * time.Second
	// DefaultFetchTimeout bounds one fetch of a key set over HTTP.
	DefaultFetchTimeout = 10 * time.Second
)

// MinSecretBytes is the shortest HS256 secret accepted: RFC 7518 asks for
// a key at least as long as the hash, 256 bits.
const MinSecretBytes = 32

// MaxTokenBytes is the longest token read; longer ones are refused
// unread.
const MaxTokenBytes = 16 << 10

// Errors of a [Verifier].
var (
	// ErrInvalidToken is wrapped by the error of a token that is not
	// accepted: malformed, signed with alg none or a wrong key, expired,
	// not yet valid, for another issuer or audience, or without the
	// resource claim. The caller should get a new token.
	ErrInvalidToken = errors.New("jwtauth: invalid token")
	// ErrKeysUnavailable is wrapped by the error of a token that could not
	// be checked because the key set could not be fetched. Such errors
	// have a method AuthUnavailable() bool reporting true, so that a
	// server answers them 503 rather than 401.
	ErrKeysUnavailable = errors.New("jwtauth: the issuer's signing keys cannot be fetched")
	// ErrOptions is wrapped by the errors of [New].
	ErrOptions = errors.New("jwtauth: invalid options")
)

// Options configure a [Verifier]. Secret, JWKS or both must be given.
type Options struct {
	// Secret verifies HS256, HS384 and HS512 tokens; at least
	// [MinSecretBytes] long. Nil refuses HMAC tokens.
	Secret []byte
	// JWKS is where the issuer's public keys are: an https URL (http on
	// loopback only), a file:// URL or a file path. It verifies RS256,
	// RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA
	// (Ed25519) tokens. "" refuses them.
	JWKS string
	// Issuer, when not empty, is the iss every token must have.
	Issuer string
	// Audience, when not empty, lists the audiences a token may be for:
	// its aud must hold one of them.
	Audience []string
	// ResourceClaim names the claim, a string, that is the caller's
	// resource (the owner of its threads); "" means
	// [DefaultResourceClaim].
	ResourceClaim string
	// Leeway is how far exp, nbf and iat may be off; 0 means
	// [DefaultLeeway], a negative value none.
	Leeway time.Duration
	// MaxKeyAge is how long a fetched key set is used before it is
	// fetched again; 0 means [DefaultMaxKeyAge].
	MaxKeyAge time.Duration
	// MinRefetch is the shortest time between two fetches of the key set;
	// 0 means [DefaultMinRefetch].
	MinRefetch time.Duration
	// HTTPClient fetches the key set; nil means a client with a
	// [DefaultFetchTimeout] timeout.
	HTTPClient *http.Client
	// Logger receives warnings about the key set (a failed refetch, keys
	// skipped); nil means slog.Default().
	Logger *slog.Logger
}

// Verifier checks bearer tokens and returns the resource they act for.
// Every token must be signed (alg none is never accepted) with an
// algorithm the options allow, and carry an exp; exp, nbf and iat are
// checked with a leeway, iss and aud when the options name them. It is
// safe for concurrent use.
type Verifier struct {
	parser *jwt.Parser
	secret []byte
	jwks   *jwks
	claim  string
	opts   Options
	now    func() time.Time
}

var (
	hmacAlgs = []string{"HS256", "HS384", "HS512"}
	keyAlgs  = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)

// New returns a verifier for o. It fetches nothing: the key set is
// fetched on first use, or by [Verifier.Prefetch].
func New(o Options) (*Verifier, error) {
	if len(o.Secret) == 0 && o.JWKS == "" {
		return nil, fmt.Errorf("%w: give a secret (HS256) or a JWKS (RS256, ES256, EdDSA)", ErrOptions)
	}
	if len(o.Secret) > 0 && len(o.Secret) < MinSecretBytes {
		return nil, fmt.Errorf("%w: the secret is %d bytes; use at least %d random bytes, such as the output of openssl rand -base64 32",
			ErrOptions, len(o.Secret), MinSecretBytes)
	}
	if o.ResourceClaim == "" {
		o.ResourceClaim = DefaultResourceClaim
	}
	switch {
	case o.Leeway == 0:
		o.Leeway = DefaultLeeway
	case o.Leeway < 0:
		o.Leeway = 0
	}
	if o.MaxKeyAge <= 0 {
		o.MaxKeyAge = DefaultMaxKeyAge
	}
	if o.MinRefetch <= 0 {
		o.MinRefetch = DefaultMinRefetch
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: DefaultFetchTimeout}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	v := &Verifier{secret: o.Secret, claim: o.ResourceClaim, opts: o, now: time.Now}
	var algs []string
	if len(o.Secret) > 0 {
		algs = append(algs, hmacAlgs...)
	}
	if o.JWKS != "" {
		j, err := newJWKS(o.JWKS, o.HTTPClient)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOptions, err)
		}
		j.maxAge, j.minGap, j.logger = o.MaxKeyAge, o.MinRefetch, o.Logger
		j.now = func() time.Time { return v.now() }
		v.jwks = j
		algs = append(algs, keyAlgs...)
	}
	popts := []jwt.ParserOption{
		jwt.WithValidMethods(algs),
		jwt.WithLeeway(o.Leeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(func() time.Time { return v.now() }),
	}
	if o.Issuer != "" {
		popts = append(popts, jwt.WithIssuer(o.Issuer))
	}
	if len(o.Audience) > 0 {
		popts = append(popts, jwt.WithAudience(o.Audience...))
	}
	v.parser = jwt.NewParser(popts...)
	return v, nil
}

// Authenticate checks token and returns the value of its resource claim.
// Its errors wrap [ErrInvalidToken], or [ErrKeysUnavailable] when the key
// set could not be fetched; their text says what is wrong, for the
// caller. It implements server.Authenticator.
func (v *Verifier) Authenticate(ctx context.Context, token string) (string, error) {
	if len(token) > MaxTokenBytes {
		return "", fmt.Errorf("%w: the token is over %d bytes", ErrInvalidToken, MaxTokenBytes)
	}
	claims := jwt.MapClaims{}
	_, err := v.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) { return v.keyFor(ctx, t) })
	if err != nil {
		var un *unavailableError
		var ke *keyError
		switch {
		case errors.As(err, &un):
			return "", un
		case errors.As(err, &ke):
			return "", ke
		default:
			return "", fmt.Errorf("%w: %v", ErrInvalidToken, err)
		}
	}
	res, _ := claims[v.claim].(string)
	if res == "" {
		return "", fmt.Errorf("%w: the token has no %q claim naming the caller (a string)", ErrInvalidToken, v.claim)
	}
	return res, nil
}

// keyError is a token no configured key can verify.
type keyError struct{ msg string }

func (e *keyError) Error() string { return ErrInvalidToken.Error() + ": " + e.msg }
func (e *keyError) Unwrap() error { return ErrInvalidToken }

// keyFor returns the keys that may verify t: the secret for HMAC tokens
// (the parser lets those through only when there is one), else the keys
// of the set that fit its kid and alg.
func (v *Verifier) keyFor(ctx context.Context, t *jwt.Token) (any, error) {
	alg := t.Method.Alg()
	if strings.HasPrefix(alg, "HS") {
		return v.secret, nil
	}
	kid, _ := t.Header["kid"].(string)
	keys, err := v.jwks.keys(ctx, kid, alg)
	if err != nil {
		return nil, err
	}
	if len(keys) == 1 {
		return keys[0].pub, nil
	}
	set := jwt.VerificationKeySet{Keys: make([]jwt.VerificationKey, len(keys))}
	for i, k := range keys {
		set.Keys[i] = k.pub
	}
	return set, nil
}

// Prefetch fetches the key set now, so that a wrong URL or file shows at
// start rather than at the first request. Without a JWKS it does nothing.
func (v *Verifier) Prefetch(ctx context.Context) error {
	if v.jwks == nil {
		return nil
	}
	_, err := v.jwks.refresh(ctx)
	return err
}

// Fetches returns how many times the key set was fetched (or read).
func (v *Verifier) Fetches() int64 {
	if v.jwks == nil {
		return 0
	}
	return v.jwks.fetches.Load()
}

// String says what the verifier accepts, for a startup line: the
// algorithms and keys, the resource claim, and the issuer and audience it
// requires.
func (v *Verifier) String() string {
	var parts []string
	if len(v.secret) > 0 {
		parts = append(parts, "HS256 with the shared secret")
	}
	if v.jwks != nil {
		parts = append(parts, "RS256/ES256/EdDSA with the keys of "+v.jwks.source)
	}
	s := strings.Join(parts, " or ") + "; resource from claim " + v.claim
	if v.opts.Issuer != "" {
		s += "; issuer " + v.opts.Issuer
	}
	if len(v.opts.Audience) > 0 {
		s += "; audience " + strings.Join(v.opts.Audience, " or ")
	}
	return s
}
