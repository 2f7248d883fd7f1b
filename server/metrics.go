package server

import (
	"net/http"
	"strings"

	"github.com/keel-go/keel/observe"
)

// MetricsPath is where [Config].Metrics is served.
const MetricsPath = "/metrics"

// MCPPath is where [Config].MCP is served.
const MCPPath = "/mcp"

// metrics answers GET /metrics with Config.Metrics. It sits behind the
// same token as /api: the shared token, since what the metrics tell (every
// agent's traffic, models and failures) is the operator's, not a user's;
// a user's token gets 403.
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) {
	if !callerOf(r).trusted() {
		writeError(w, http.StatusForbidden, "the metrics need the server's shared token, not a user's")
		return
	}
	s.cfg.Metrics.ServeHTTP(w, r)
}

// observeRequest starts a request's Request op when the server has an
// Observer: its context carries the observer (the agents report their
// runs to it) and the op. It returns r unchanged and a nil op otherwise.
func (s *Server) observeRequest(r *http.Request) (*http.Request, *observe.Op, observe.Span) {
	if s.cfg.Observer == nil {
		return r, nil, nil
	}
	op := observe.NewOp()
	*op = observe.Op{Kind: observe.Request, Method: r.Method, Header: r.Header}
	ctx, span := s.cfg.Observer.Start(observe.NewContext(r.Context(), s.cfg.Observer), op)
	return r.WithContext(ctx), op, span
}

// endRequest ends a request's op with the route it matched and the status
// its client saw.
func endRequest(r *http.Request, op *observe.Op, span observe.Span, status int) {
	if op == nil {
		return
	}
	// A pattern is "[METHOD ][HOST]/PATH"; the route is the path's
	// template, as OpenTelemetry's http.route.
	route := r.Pattern
	if i := strings.IndexByte(route, '/'); i >= 0 {
		route = route[i:]
	}
	op.Route, op.Status = route, status
	span.End(nil)
	observe.ReleaseOp(op)
}
