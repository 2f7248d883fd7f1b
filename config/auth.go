package config

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
)

// The environment variables of keel serve's auth and CORS, when the file
// names no others.
const (
	// DefaultJWTSecretEnv holds the HS256 secret of per-user tokens.
	DefaultJWTSecretEnv = "KEEL_JWT_SECRET"
	// JWKSEnv holds the URL (or file) of the issuer's keys when the file
	// names none.
	JWKSEnv = "KEEL_JWKS_URL"
	// CORSOriginsEnv holds the allowed browser origins, comma-separated;
	// when set, it replaces the file's.
	CORSOriginsEnv = "KEEL_CORS_ORIGINS"
)

// Auth says how keel serve tells its callers apart. Secrets never go in
// the file: it names the environment variables that hold them.
//
// The shared token (TokenEnv) is for trusted callers, such as a backend
// acting for its users: they may act for any resource. Per-user tokens
// (JWT) act for the resource their claim names, and for it only. Both may
// be on at once.
type Auth struct {
	// TokenEnv names the variable that holds the shared bearer token;
	// empty means the server's tokenEnv, else [DefaultTokenEnv].
	TokenEnv string `yaml:"tokenEnv"`
	// JWT configures per-user tokens. Without it, they are on when
	// KEEL_JWT_SECRET or KEEL_JWKS_URL is set; with it, one of its keys
	// must be found at start.
	JWT *JWT `yaml:"jwt"`
}

// JWT configures per-user JSON Web Tokens.
type JWT struct {
	// SecretEnv names the variable that holds the HS256 secret (at least
	// 32 bytes); empty means [DefaultJWTSecretEnv].
	SecretEnv string `yaml:"secretEnv"`
	// JWKS is where the issuer's public keys (RS256, ES256, EdDSA) are:
	// an https URL, a file:// URL or a file path. Empty means the
	// KEEL_JWKS_URL variable, if set.
	JWKS string `yaml:"jwks"`
	// Issuer, when set, is the iss every token must have.
	Issuer string `yaml:"issuer"`
	// Audience, when set, lists the audiences a token may be for (one
	// name or a list).
	Audience StringList `yaml:"audience"`
	// ResourceClaim is the claim that names the caller's resource;
	// empty means sub.
	ResourceClaim string `yaml:"resourceClaim"`
	// Leeway is how far exp, nbf and iat may be off; 0 means 30s.
	Leeway time.Duration `yaml:"leeway"`
}

// CORS configures keel serve for apps in a browser.
type CORS struct {
	// Origins are the origins allowed to call the server, such as
	// https://app.example.com or http://localhost:3000, or "*" for any.
	// Empty turns CORS off. KEEL_CORS_ORIGINS replaces them when set.
	Origins []string `yaml:"origins"`
}

// StringList is one string or a list of them.
type StringList []string

// UnmarshalYAML reads a string or a list of strings.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = StringList{n.Value}
		return nil
	}
	var s []string
	if err := n.Decode(&s); err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: write a name or a list of names", n.Line)}}
	}
	*l = s
	return nil
}

// ServerAuth is the auth and CORS of keel serve, read from the file and
// the environment: what [server.Config] and [jwtauth.New] take.
type ServerAuth struct {
	// Token is the shared token; "" when its variable is not set.
	Token string
	// TokenEnv is the variable it is read from.
	TokenEnv string
	// JWT, when not nil, are the options of the per-user verifier.
	JWT *jwtauth.Options
	// JWTSecretEnv is the variable the JWT secret was read from, when
	// there is one.
	JWTSecretEnv string
	// CORSOrigins are the allowed browser origins, and CORSFrom where
	// they come from (the file, or the variable).
	CORSOrigins []string
	CORSFrom    string
}

// ResolveAuth reads the server's auth and CORS from the file and from
// getenv (os.Getenv). A file that asks for per-user tokens without a key
// to check them, or a variable holding a bad value, is an error that says
// what to set.
func (s Server) ResolveAuth(getenv func(string) string) (*ServerAuth, error) {
	out := &ServerAuth{TokenEnv: s.TokenEnvName()}
	out.Token = strings.TrimSpace(getenv(out.TokenEnv))
	j := s.Auth.JWT
	secretEnv := DefaultJWTSecretEnv
	if j != nil && j.SecretEnv != "" {
		secretEnv = j.SecretEnv
	}
	secret := strings.TrimSpace(getenv(secretEnv))
	jwks := strings.TrimSpace(getenv(JWKSEnv))
	if j != nil && j.JWKS != "" {
		jwks = j.JWKS
	}
	switch {
	case secret != "" || jwks != "":
		o := &jwtauth.Options{JWKS: jwks}
		if secret != "" {
			o.Secret = []byte(secret)
			out.JWTSecretEnv = secretEnv
		}
		if j != nil {
			o.Issuer, o.Audience, o.ResourceClaim, o.Leeway = j.Issuer, j.Audience, j.ResourceClaim, j.Leeway
		}
		out.JWT = o
	case j != nil:
		return nil, fmt.Errorf("config: server.auth.jwt is set but no key checks tokens: set %s to the HS256 secret, "+
			"or server.auth.jwt.jwks (or %s) to the issuer's JWKS URL", secretEnv, JWKSEnv)
	}
	out.CORSOrigins, out.CORSFrom = s.CORS.Origins, "server.cors.origins"
	if v := strings.TrimSpace(getenv(CORSOriginsEnv)); v != "" {
		out.CORSOrigins, out.CORSFrom = nil, CORSOriginsEnv
		for _, o := range strings.Split(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				if _, err := server.ParseOrigin(o); err != nil {
					return nil, fmt.Errorf("config: %s: %w", CORSOriginsEnv, err)
				}
				out.CORSOrigins = append(out.CORSOrigins, o)
			}
		}
	}
	return out, nil
}

// TokenEnvName returns the variable that holds the server's shared token:
// auth.tokenEnv, else tokenEnv, else [DefaultTokenEnv].
func (s Server) TokenEnvName() string {
	return cmp.Or(s.Auth.TokenEnv, s.TokenEnv, DefaultTokenEnv)
}

// validateAuth checks the server's auth and CORS settings; add reports a
// mistake at a key below server (path: the keys and indexes below it).
func validateAuth(s Server, add func(path []any, format string, args ...any)) {
	if s.TokenEnv != "" && s.Auth.TokenEnv != "" && s.TokenEnv != s.Auth.TokenEnv {
		add([]any{"auth", "tokenEnv"}, "%q and server.tokenEnv %q disagree: keep one (auth.tokenEnv is the new place)", s.Auth.TokenEnv, s.TokenEnv)
	}
	for _, e := range []struct {
		path []any
		v    string
	}{{[]any{"tokenEnv"}, s.TokenEnv}, {[]any{"auth", "tokenEnv"}, s.Auth.TokenEnv}} {
		if e.v != "" && !envNameRE.MatchString(e.v) {
			add(e.path, "%q: name the environment variable that holds the token (such as %s), not the token itself", e.v, DefaultTokenEnv)
		}
	}
	if j := s.Auth.JWT; j != nil {
		if j.SecretEnv != "" && !envNameRE.MatchString(j.SecretEnv) {
			add([]any{"auth", "jwt", "secretEnv"}, "%q: name the environment variable that holds the secret (such as %s), not the secret itself", j.SecretEnv, DefaultJWTSecretEnv)
		}
		if j.JWKS != "" {
			if _, err := jwtauth.New(jwtauth.Options{JWKS: j.JWKS}); err != nil {
				add([]any{"auth", "jwt", "jwks"}, "%s", strings.TrimPrefix(err.Error(), jwtauth.ErrOptions.Error()+": jwtauth: "))
			}
		}
		if j.Leeway < 0 {
			add([]any{"auth", "jwt", "leeway"}, "%s: a leeway cannot be negative", j.Leeway)
		}
		for i, a := range j.Audience {
			if strings.TrimSpace(a) == "" {
				add([]any{"auth", "jwt", "audience", i}, "an audience cannot be empty")
			}
		}
	}
	for i, o := range s.CORS.Origins {
		if _, err := server.ParseOrigin(o); err != nil {
			add([]any{"cors", "origins", i}, "%s", strings.TrimPrefix(err.Error(), server.ErrConfig.Error()+": "))
		}
	}
}

// fieldName writes a path below server as a field, such as
// server.cors.origins[1].
func fieldName(path []any) string {
	var b strings.Builder
	b.WriteString("server")
	for _, k := range path {
		switch k := k.(type) {
		case string:
			b.WriteString("." + k)
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return b.String()
}
