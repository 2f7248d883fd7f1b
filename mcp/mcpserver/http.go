package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller is who calls the server over HTTP, as [HandlerOptions].Authorize
// tells: a trusted caller (a backend holding the shared token, or anyone
// when there is no auth) names the resource of each ask, a user acts for
// its own resource only.
type Caller struct {
	// Resource is the user's resource; "" for a trusted caller.
	Resource string
}

// Trusted reports whether the caller may name any resource.
func (c Caller) Trusted() bool { return c.Resource == "" }

// HandlerOptions configure [Server.Handler].
type HandlerOptions struct {
	// Authorize tells who sent a request, or refuses it: the error's text
	// is the 401 answer's, or a 503's when the error has a method
	// AuthUnavailable() bool reporting true (the credentials could not be
	// checked just now). Nil trusts every request, as a server without
	// auth on loopback does.
	Authorize func(r *http.Request) (Caller, error)
	// MaxBodyBytes caps a request's body; 0 means room for an ask with a
	// file of the server's MaxFileBytes in base64.
	MaxBodyBytes int64
	// AllowAnyHost serves requests that reached a loopback address under
	// any host name. By default those under a name that is not
	// loopback's ("localhost", 127.0.0.1, [::1]) are refused (403), as
	// the MCP SDK does against DNS rebinding: a page on another site must
	// not reach a server on the user's machine through its own name.
	// AllowedHosts allows a few names instead of any.
	AllowAnyHost bool
	// AllowedHosts are the host names, besides loopback's, under which a
	// request that reached a loopback address is served: the name a
	// reverse proxy on the same machine forwards to keel, such as
	// "keel.example.com" (any port), "*.example.com" (any name below it),
	// or "*" (any, as AllowAnyHost). Each must pass [CheckHost]. Requests
	// that reached another address are not checked: the attack needs a
	// server on the browser's machine.
	AllowedHosts []string
}

// callerKey carries a request's Caller from the auth check to the SDK's
// choice of server.
type callerKey struct{}

// Handler returns an http.Handler serving MCP over streamable HTTP, for
// mounting at a path such as /mcp. Each request is served on its own,
// without a session (the protocol's stateless mode, where it is going):
// a request's asks act for the caller Authorize returns for that request,
// so no session can be taken over by another caller. An entry of
// opts.AllowedHosts that [CheckHost] refuses is an error wrapping
// [ErrHost].
func (s *Server) Handler(opts HandlerOptions) (http.Handler, error) {
	hosts, err := newHostCheck(opts.AllowedHosts, opts.AllowAnyHost)
	if err != nil {
		return nil, err
	}
	maxBody := opts.MaxBodyBytes
	if maxBody <= 0 {
		maxBody = (s.opts.MaxFileBytes/3+1)*4 + 1<<20
	}
	sdkHandler := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		caller, _ := r.Context().Value(callerKey{}).(Caller)
		if caller.Trusted() {
			return s.trusted
		}
		return s.sdkServer(caller)
	}, &sdk.StreamableHTTPOptions{
		Stateless: true,
		// An ask sends nothing before its answer, so the answer goes as
		// one JSON body: measured, the SDK's event stream costs a
		// stateless call several times its JSON response (BENCHMARKS.md).
		JSONResponse:        true,
		Logger:              s.opts.Logger,
		MaxRequestBodyBytes: maxBody,
		// A client that goes away stops its ask's run.
		PropagateRequestCancellation: true,
		// hosts makes the SDK's check, with a list of names.
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts.allows(r) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q: a request that reached loopback must name loopback "+
				"or an allowed host (keel.yaml: server.mcp.allowedHosts)", r.Host), http.StatusForbidden)
			return
		}
		caller := Caller{}
		if opts.Authorize != nil {
			var err error
			caller, err = opts.Authorize(r)
			if err != nil {
				code := http.StatusUnauthorized
				var u interface{ AuthUnavailable() bool }
				if errors.As(err, &u) && u.AuthUnavailable() {
					code = http.StatusServiceUnavailable
				} else {
					w.Header().Set("WWW-Authenticate", "Bearer")
				}
				http.Error(w, err.Error(), code)
				return
			}
		}
		sdkHandler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, caller)))
	}), nil
}
