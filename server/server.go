package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/observe"
	"github.com/keel-go/keel/processor"
)

// Defaults of a [Config].
const (
	// DefaultMaxBodyBytes is the largest request body accepted: 50 MiB.
	DefaultMaxBodyBytes int64 = 50 << 20
	// DefaultMaxFiles is the most file and image parts one generate or
	// stream request may hold.
	DefaultMaxFiles = 100
	// DefaultKeepAlive is how often a quiet stream gets a ": ping" comment.
	DefaultKeepAlive = 15 * time.Second
	// DefaultShutdownGrace is how long [Server.Serve] lets running requests
	// and streams finish once its context is cancelled.
	DefaultShutdownGrace = 30 * time.Second
	// DefaultHeaderTimeout is how long [Server.Serve] waits for a request's
	// headers.
	DefaultHeaderTimeout = 10 * time.Second
	// DefaultBodyGrace and DefaultMinBodyRate: a body must arrive at 32 KiB
	// a second on average once its first 10 seconds are over.
	DefaultBodyGrace         = 10 * time.Second
	DefaultMinBodyRate int64 = 32 << 10
	// DefaultWriteTimeout is how long one write of a response may take.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultGenerateTimeout bounds a /generate run as a whole: about
	// what a proxy in front waits for an answer.
	DefaultGenerateTimeout = 30 * time.Second
	// DefaultIdleTimeout is how long [Server.Serve] keeps an idle
	// keep-alive connection.
	DefaultIdleTimeout = 2 * time.Minute
)

// Config describes a [Server]. Only Agents is required.
type Config struct {
	// Agents are served under /api/agents, listed in this order. IDs must
	// be unique and valid ids ([memory.ValidID]).
	Agents []*agent.Agent
	// Memory serves the /api/memory routes and is what GET /ready checks.
	// It should be the store the agents use, so that the threads a run
	// writes are the ones listed. Nil answers the memory routes with 501.
	Memory memory.Store
	// Token, when not empty, is required as "Authorization: Bearer <Token>"
	// on every /api request (compared in constant time); others get 401,
	// before any of their body is read. /health and /ready need none. Its
	// holders are trusted: they may act for any resource (a backend acting
	// for its users). With Users set, Token may be empty: then only users'
	// tokens are accepted.
	Token string
	// Users, when not nil, verifies per-user bearer tokens (such as a
	// jwtauth.Verifier): every /api request must carry Token or a token
	// Users accepts, and a user's request acts for the token's resource
	// only (see the package documentation, "Whose threads").
	Users Authenticator
	// CORSOrigins are the browser origins allowed to call the server
	// (scheme://host[:port], or "*" for any; see [ParseOrigin]). Empty
	// turns CORS off: browsers then refuse cross-origin calls.
	CORSOrigins []string
	// MaxBodyBytes caps request bodies; 0 means [DefaultMaxBodyBytes]. A
	// bigger body is answered 413 before anything runs or is stored.
	MaxBodyBytes int64
	// MaxFiles caps the file and image parts of one generate or stream
	// request; 0 means [DefaultMaxFiles], a negative value removes the cap.
	// More is answered 400 before any file is decoded.
	MaxFiles int
	// BodyGrace and MinBodyRate bound how slowly a body may arrive: once
	// BodyGrace has passed since the request began, the body must have
	// come at MinBodyRate bytes a second on average, or the request is
	// answered 408 and its connection closed. 0 means [DefaultBodyGrace]
	// and [DefaultMinBodyRate]; a negative MinBodyRate turns the rule off.
	BodyGrace   time.Duration
	MinBodyRate int64
	// WriteTimeout bounds each write of a response (each event of a
	// stream), not the response as a whole, so a stream lasts as long as
	// its client keeps reading; 0 means [DefaultWriteTimeout], a negative
	// value turns it off. A client that stops reading is dropped after it.
	WriteTimeout time.Duration
	// GenerateTimeout bounds a /generate run as a whole, its every model
	// call, retry, retry's wait and tool included, so that the answer
	// comes before a proxy in front of the server (or the client) gives
	// up: past it the run is cancelled and the answer is 504, saying what
	// stalled. 0 means the smaller of [DefaultGenerateTimeout] and
	// WriteTimeout; a negative value turns the bound off. It may not be
	// over a WriteTimeout that is on. /stream and Mastra Studio's turns
	// have no such bound: their clients see each part as it comes.
	GenerateTimeout time.Duration
	// TurnQueue bounds the Mastra Studio turns (send-message) waiting in
	// one thread and in all of one resource's threads; beyond, a message
	// is answered 409. 0 means [DefaultQueuedPerThread] and
	// [DefaultQueuedPerResource]. The turns wait in Memory when it is a
	// [memory.TurnQueue] (the three stores of package memory are), else
	// in this process, lost when it stops.
	TurnQueue memory.QueueLimits
	// HeaderTimeout bounds reading a request's headers, and IdleTimeout
	// how long an idle keep-alive connection is kept, in [Server.Serve];
	// 0 means [DefaultHeaderTimeout] and [DefaultIdleTimeout]. Give your
	// own http.Server the same when you mount [Server.Handler] in it.
	HeaderTimeout time.Duration
	IdleTimeout   time.Duration
	// Logger receives one line per request (method, path, status,
	// duration, bytes), one per recovery a run reports, and the server's
	// own messages; nil means slog.Default().
	Logger *slog.Logger
	// KeepAlive is the interval of ": ping" comments on streams; 0 means
	// [DefaultKeepAlive], a negative value turns them off.
	KeepAlive time.Duration
	// ShutdownGrace is how long Serve waits for running requests once its
	// context ends; 0 means [DefaultShutdownGrace].
	ShutdownGrace time.Duration
	// Console, when not nil, answers every request outside /api, /health,
	// /ready and /metrics (when Metrics is set): keel's web console
	// (package console), which keel serve mounts. Nil answers them 404. The API's rules (token, limits, logs)
	// apply to it as to any request, but it needs no token itself: the
	// page holds no data, and asks for the token to call the API.
	Console http.Handler
	// Observer, when not nil, is told of every request (method, route,
	// the status the client saw), and the request's context carries it,
	// so that the agents report their runs, steps, model calls,
	// processor decisions, tool calls, sandbox commands and uploads to it
	// (see package observe). Nil reports nothing and costs nothing.
	Observer observe.Observer
	// MCPServers are the MCP servers the agents take tools from, listed
	// by GET /api/mcp/v0/servers (config.Built.MCP).
	MCPServers []MCPServer
	// MCP, when not nil, is served at /mcp ([MCPPath]): keel's agents as
	// an MCP server over streamable HTTP (mcpserver.Server.Handler). It
	// is behind the same token as /api, and learns who the caller is
	// from [CallerResource] of the request's context.
	MCP http.Handler
	// Metrics, when not nil, is served at GET /metrics ([MetricsPath]),
	// such as a Prometheus handler. With Token or Users set it needs the
	// shared Token, like /api; a user's token is 403. Nil: no route.
	Metrics http.Handler
}

// Server answers the HTTP API of @mastra/client-js for a set of agents and
// a memory store. It is safe for concurrent use.
type Server struct {
	cfg         Config
	agents      map[string]*agent.Agent
	order       []*agent.Agent
	logger      *slog.Logger
	handler     http.Handler
	tokenDigest [sha256.Size]byte
	cors        *corsPolicy
	refusals    []*processor.RememberedRefusals // the agents', each once
	events      threadEvents                    // threadevents.go
	turns       *turns                          // turns.go
	downloads   downloadSlots                   // sandbox file downloads under way
}

// ErrConfig is wrapped by the errors of [New].
var ErrConfig = errors.New("server: invalid config")

// New returns a server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	if cfg.MaxFiles == 0 {
		cfg.MaxFiles = DefaultMaxFiles
	}
	if cfg.BodyGrace <= 0 {
		cfg.BodyGrace = DefaultBodyGrace
	}
	if cfg.MinBodyRate == 0 {
		cfg.MinBodyRate = DefaultMinBodyRate
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	switch {
	case cfg.GenerateTimeout == 0 && cfg.WriteTimeout > 0:
		cfg.GenerateTimeout = min(DefaultGenerateTimeout, cfg.WriteTimeout)
	case cfg.GenerateTimeout == 0:
		cfg.GenerateTimeout = DefaultGenerateTimeout
	case cfg.GenerateTimeout > 0 && cfg.WriteTimeout > 0 && cfg.GenerateTimeout > cfg.WriteTimeout:
		return nil, fmt.Errorf("%w: GenerateTimeout %v is over WriteTimeout %v: a proxy that gives up with the write would never see the answer",
			ErrConfig, cfg.GenerateTimeout, cfg.WriteTimeout)
	}
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = DefaultHeaderTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	s := &Server{cfg: cfg, agents: make(map[string]*agent.Agent, len(cfg.Agents)), logger: cfg.Logger,
		tokenDigest: sha256.Sum256([]byte(cfg.Token))}
	var err error
	if s.cors, err = newCORS(cfg.CORSOrigins); err != nil {
		return nil, err
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	for i, a := range cfg.Agents {
		if a == nil {
			return nil, fmt.Errorf("%w: agent %d is nil", ErrConfig, i)
		}
		if !memory.ValidID(a.ID()) {
			return nil, fmt.Errorf("%w: agent id %q: use 1 to %d of [A-Za-z0-9._:-]", ErrConfig, a.ID(), memory.MaxIDLength)
		}
		if _, dup := s.agents[a.ID()]; dup {
			return nil, fmt.Errorf("%w: agent id %q is given twice", ErrConfig, a.ID())
		}
		s.agents[a.ID()] = a
		s.order = append(s.order, a)
	}
	s.refusals = agentRefusals(s.order)
	s.turns = newTurns(cfg.Memory, cfg.TurnQueue, s.logger)
	s.turns.run = s.runQueued
	s.handler = s.routes()
	return s, nil
}

// Handler returns the server's HTTP handler: the /api routes behind the
// token check, /health and /ready, with request logs and the body and
// write rules of the Config.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers requests on ln until ctx ends, then stops accepting
// connections and lets running requests, streams included, finish for up
// to Config.ShutdownGrace before closing what is left. It returns nil after
// a shutdown caused by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.httpServer(ctx)
	cors := "off"
	if s.cors != nil {
		cors = s.cors.list
	}
	s.logger.Info("server: listening", "addr", ln.Addr().String(), "agents", len(s.order), "auth", s.authMode(), "cors", cors,
		"memory", s.cfg.Memory != nil, "max_body_bytes", s.cfg.MaxBodyBytes, "max_files", s.cfg.MaxFiles,
		"header_timeout", s.cfg.HeaderTimeout, "body_grace", s.cfg.BodyGrace, "min_body_rate", s.cfg.MinBodyRate,
		"write_timeout", s.cfg.WriteTimeout, "generate_timeout", s.cfg.GenerateTimeout)
	hs.RegisterOnShutdown(s.events.shutdown)
	if bus, ok := memory.Capability[memory.EventBus](s.cfg.Memory); ok {
		// Stopped last, so that the chunks of the turns that end in the
		// grace reach the other servers.
		defer s.events.startBus(bus, s.logger)()
	}
	s.turns.recover(ctx)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: serve: %w", err)
	case <-ctx.Done():
	}
	s.logger.Info("server: shutting down", "grace", s.cfg.ShutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	// Requests and the turns running for Studio share the grace; then
	// the turns still running are cancelled and waited for.
	turnsDone := make(chan struct{})
	go func() { s.turns.stop(sctx); close(turnsDone) }()
	err := hs.Shutdown(sctx)
	if err != nil {
		hs.Close()
	}
	<-errc
	<-turnsDone
	if err != nil {
		return fmt.Errorf("server: shutdown: %w", err)
	}
	return nil
}

// httpServer is the http.Server that Serve runs: the handler and the
// Config's timeouts.
func (s *Server) httpServer(ctx context.Context) *http.Server {
	return &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.HeaderTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		// No ReadTimeout: bodies are read under the rate rule instead
		// (see guardedBody). The WriteTimeout only covers what the server
		// writes itself before a handler does (each request's writes move
		// the deadline on, see recorder), so it never cuts a stream.
		WriteTimeout: max(s.cfg.WriteTimeout, 0),
		ErrorLog:     slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
		// Request contexts do not derive from ctx: cancelling ctx must let
		// running streams end on their own, not cut them.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
}

func (s *Server) agent(w http.ResponseWriter, r *http.Request) (*agent.Agent, bool) {
	id, e := pathID(r, "id")
	if e != nil {
		writeRequestError(w, e)
		return nil, false
	}
	a, ok := s.agents[id]
	if !ok {
		writeError(w, http.StatusNotFound, "Agent with id "+id+" not found")
		return nil, false
	}
	return a, true
}
