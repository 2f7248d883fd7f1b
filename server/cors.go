package server

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// corsHeaders are the request headers a browser app may always send: the
// Mastra client's and Studio's, and the ones keel reads.
var corsHeaders = []string{"authorization", "content-type", "x-mastra-client-type", "x-mastra-dev-playground", "x-resource-id"}

// corsPolicy answers browsers' cross-origin requests from the allowed
// origins: each response to one of them names the exact origin (never
// "*", since credentials are allowed) and allows credentials, and their
// preflight requests are answered before any token is asked for, since
// browsers send none with them. Other origins get no CORS headers, and
// their preflight a 403 that says how to allow them.
type corsPolicy struct {
	anyOrigin bool
	origins   map[string]bool
	list      string // for the startup line
}

// ParseOrigin checks an origin a server may allow: "*" (any origin, for
// development), or scheme://host[:port] with scheme http or https and no
// path, as browsers send it in the Origin header. It returns it in the
// lower case browsers use.
func ParseOrigin(s string) (string, error) {
	if s == "*" {
		return s, nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%w: origin %q: write scheme://host[:port], such as https://app.example.com or http://localhost:3000", ErrConfig, s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

func newCORS(origins []string) (*corsPolicy, error) {
	if len(origins) == 0 {
		return nil, nil
	}
	p := &corsPolicy{origins: make(map[string]bool, len(origins))}
	var names []string
	for _, o := range origins {
		o, err := ParseOrigin(strings.TrimSpace(o))
		if err != nil {
			return nil, err
		}
		if o == "*" {
			p.anyOrigin = true
		} else {
			p.origins[o] = true
		}
		names = append(names, o)
	}
	p.list = strings.Join(names, ", ")
	return p, nil
}

func (p *corsPolicy) allows(origin string) bool {
	return origin != "" && origin != "null" && (p.anyOrigin || p.origins[origin])
}

// handle adds the CORS headers r's origin gets, and answers it when it is
// a preflight request; true means the answer was written.
func (p *corsPolicy) handle(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	h := w.Header()
	h.Add("Vary", "Origin")
	if origin == "" {
		return false
	}
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if !p.allows(origin) {
		if preflight {
			writeError(w, http.StatusForbidden, "origin "+trimField(origin)+
				" is not allowed to call this server: add it to the allowed origins (server.cors.origins in keel.yaml, or KEEL_CORS_ORIGINS)")
			return true
		}
		return false
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Credentials", "true")
	if !preflight {
		h.Set("Access-Control-Expose-Headers", "Retry-After, WWW-Authenticate")
		return false
	}
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", allowedHeaders(r.Header.Get("Access-Control-Request-Headers")))
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// allowedHeaders is corsHeaders and the headers a preflight asks for: an
// allowed origin is trusted with any header, and a fixed list would break
// apps that add their own (tracing, for one).
func allowedHeaders(requested string) string {
	seen := make(map[string]bool, len(corsHeaders))
	out := append([]string(nil), corsHeaders...)
	for _, h := range corsHeaders {
		seen[h] = true
	}
	var extra []string
	for _, h := range strings.Split(requested, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" || seen[h] || !headerToken(h) {
			continue
		}
		seen[h] = true
		extra = append(extra, h)
	}
	sort.Strings(extra)
	return strings.Join(append(out, extra...), ", ")
}

func headerToken(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return len(s) <= 64
}
