package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"github.com/keel-go/keel/memory"
)

// Authenticator verifies per-user bearer tokens (see Config.Users).
// jwtauth.Verifier is one. Implementations are safe for concurrent use.
type Authenticator interface {
	// Authenticate returns the resource the bearer token acts for: the
	// owner of the caller's threads and sandbox. An error refuses the
	// request with 401 and the error's text, or with 503 when the error
	// has a method AuthUnavailable() bool reporting true (the token could
	// not be checked, such as when the issuer's keys cannot be fetched).
	Authenticate(ctx context.Context, token string) (resource string, err error)
}

// authMode names how the server tells who its callers are, for its
// "listening" log line: "users" (per-user tokens, and the shared token if
// set), "token" (the shared token) or "none".
func (s *Server) authMode() string {
	switch {
	case s.cfg.Users != nil:
		return "users"
	case s.cfg.Token != "":
		return "token"
	default:
		return "none"
	}
}

// caller is who sent a request. A trusted caller (no auth, or the shared
// token) may act for any resource and name it in the request; a user
// acts for its own resource only.
type caller struct {
	resource string // "" for a trusted caller
}

func (c caller) trusted() bool { return c.resource == "" }

type callerKey struct{}

// CallerResource returns the resource the caller of a request whose
// context this is acts for: its token's, for a user (a token
// Config.Users accepts); "" for a trusted caller (no auth, or the shared
// token), who may name any. Handlers mounted in the server, such as
// Config.MCP, use it to apply the same rule as the API's routes.
func CallerResource(ctx context.Context) string {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c.resource
}

func callerOf(r *http.Request) caller {
	c, _ := r.Context().Value(callerKey{}).(caller)
	return c
}

// authFailure is a request the authentication refused.
type authFailure struct {
	status int
	msg    string
}

// authenticate tells who sent r. Requests outside /api, and every request
// of a server without auth, are trusted. Otherwise the bearer token must
// be the shared token (compared in constant time: digests, so the lengths
// do not show) or one Config.Users accepts.
func (s *Server) authenticate(r *http.Request) (caller, *authFailure) {
	if !isAPI(r.URL.Path) && (s.cfg.Metrics == nil || r.URL.Path != MetricsPath) && (s.cfg.MCP == nil || r.URL.Path != MCPPath) ||
		s.cfg.Token == "" && s.cfg.Users == nil || isCapabilities(r) {
		return caller{}, nil
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return caller{}, &authFailure{http.StatusUnauthorized, s.missingTokenMessage()}
	}
	if s.cfg.Token != "" {
		got := sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(got[:], s.tokenDigest[:]) == 1 {
			return caller{}, nil
		}
	}
	if s.cfg.Users == nil {
		return caller{}, &authFailure{http.StatusUnauthorized, "missing or invalid token: send Authorization: Bearer <KEEL_API_TOKEN>"}
	}
	res, err := s.cfg.Users.Authenticate(r.Context(), token)
	if err != nil {
		var un interface{ AuthUnavailable() bool }
		if errors.As(err, &un) && un.AuthUnavailable() {
			s.logger.Error("server: tokens cannot be checked", "err", err)
			return caller{}, &authFailure{http.StatusServiceUnavailable, "tokens cannot be checked now: " + err.Error()}
		}
		return caller{}, &authFailure{http.StatusUnauthorized, err.Error()}
	}
	if !memory.ValidID(res) {
		return caller{}, &authFailure{http.StatusUnauthorized, "the token's resource " + trimField(res) + " is not a valid id: it " + idRule}
	}
	return caller{resource: res}, nil
}

func (s *Server) missingTokenMessage() string {
	if s.cfg.Users != nil {
		return "missing token: send Authorization: Bearer <your access token>"
	}
	return "missing or invalid token: send Authorization: Bearer <KEEL_API_TOKEN>"
}

func isAPI(path string) bool { return path == "/api" || strings.HasPrefix(path, "/api/") }

// isCapabilities tells Mastra Studio's first call, which needs no token:
// it says only how the server is protected, so that Studio loads and can
// be given the token in its request headers.
func isCapabilities(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == "/api/auth/capabilities"
}
