package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
)

// serveAuth is keel serve's auth and CORS: the file's settings and the
// environment's secrets, with the verifier of users' tokens built and its
// keys fetched, so that a wrong key or URL stops keel at start rather
// than refusing every user.
type serveAuth struct {
	*config.ServerAuth
	users *jwtauth.Verifier
}

func loadServeAuth(ctx context.Context, f *config.File, logger *slog.Logger) (*serveAuth, error) {
	resolved, err := f.Server.ResolveAuth(os.Getenv)
	if err != nil {
		return nil, err
	}
	a := &serveAuth{ServerAuth: resolved}
	if resolved.JWT == nil {
		return a, nil
	}
	o := *resolved.JWT
	o.Logger = logger
	if a.users, err = jwtauth.New(o); err != nil {
		return nil, fmt.Errorf("per-user tokens: %w", err)
	}
	if err := a.users.Prefetch(ctx); err != nil {
		return nil, fmt.Errorf("per-user tokens: %w (check server.auth.jwt.jwks or %s)", err, config.JWKSEnv)
	}
	return a, nil
}

// protected reports whether every request needs a token.
func (a *serveAuth) protected() bool { return a.Token != "" || a.users != nil }

// serverConfig sets the auth and CORS of c.
func (a *serveAuth) serverConfig(c *server.Config) {
	c.Token, c.CORSOrigins = a.Token, a.CORSOrigins
	if a.users != nil {
		c.Users = a.users
	}
}

// lines are what keel serve says at start of who may call it.
func (a *serveAuth) lines(addr string, insecureBind bool) []string {
	var out []string
	switch {
	case a.users != nil:
		line := "auth: per-user tokens (" + a.users.String() + "): each caller acts for its token's resource only"
		if a.Token != "" {
			line += fmt.Sprintf("; holders of $%s are trusted and may act for any resource", a.TokenEnv)
		}
		out = append(out, line)
	case a.Token != "":
		out = append(out, fmt.Sprintf("auth: shared token: every request needs Authorization: Bearer $%s; its holders are trusted and may act for any resource "+
			"(set %s or %s for per-user tokens)", a.TokenEnv, config.DefaultJWTSecretEnv, config.JWKSEnv))
	case insecureBind:
		out = append(out, fmt.Sprintf("WARNING: auth: none, and not on loopback: anyone who reaches %s can use the agents and read every thread (set %s)", addr, a.TokenEnv))
	default:
		out = append(out, fmt.Sprintf("auth: none: listening on loopback, so only this machine can connect; "+
			"to serve other machines, set %s (a shared token, then --addr 0.0.0.0:4111) or %s (per-user tokens)",
			a.TokenEnv, config.DefaultJWTSecretEnv))
	}
	if len(a.CORSOrigins) > 0 {
		out = append(out, fmt.Sprintf("cors: browser apps from %s may call (%s)", strings.Join(a.CORSOrigins, ", "), a.CORSFrom))
	}
	return out
}
