package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/console"
	"github.com/keel-go/keel/mcp/mcpserver"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// serveCmd is keel serve: the HTTP API, until SIGINT or SIGTERM.
type serveCmd struct {
	addr         string
	insecureBind bool
	storage      storageFlags
	agents       agentFlags
}

// Run runs keel serve with args.
func (c *serveCmd) Run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel serve", "keel serve [flags]", std.err)
	fs.StringVar(&c.addr, "addr", config.DefaultAddr, "the address to listen on, unless keel.yaml's server.addr names one")
	fs.BoolVar(&c.insecureBind, "insecure-bind", false, "listen beyond loopback without a bearer token: anyone who reaches the port can use the agents")
	c.storage.register(fs)
	c.agents.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected %q: keel serve takes flags only", pos[0])
	}
	f, err := c.agents.load()
	if err != nil {
		return err
	}
	addr := c.addr
	if !isSet(fs, "addr") && f.Server.Addr != "" {
		addr = f.Server.Addr
	}
	logger := newLogger(std.err, slog.LevelInfo)
	reaping := startReaper()
	auth, err := loadServeAuth(ctx, f, logger)
	if err != nil {
		return err
	}
	loopback, err := isLoopback(addr)
	if err != nil {
		return usagef("--addr %q: %v; write host:port, such as %s", addr, err, config.DefaultAddr)
	}
	if !loopback && !auth.protected() && !c.insecureBind {
		return usagef("refusing to listen on %s without auth: set %s to a secret that clients send as a bearer token "+
			"(or %s for per-user tokens), listen on loopback (--addr %s), or pass --insecure-bind to serve anyone who reaches the port",
			addr, auth.TokenEnv, config.DefaultJWTSecretEnv, config.DefaultAddr)
	}

	tel, err := loadTelemetry(ctx, f.Server.Metrics)
	if err != nil {
		return err
	}
	defer tel.shutdown(logger)
	store, where, err := c.storage.open(ctx, true)
	if err != nil {
		return err
	}
	defer store.Close()
	store = tel.store(store)
	built, err := c.agents.build(ctx, f, store, logger, "serve", "")
	if err != nil {
		return err
	}
	defer built.Close()
	ui, err := console.New()
	if err != nil {
		return err
	}
	asks, err := mcpserver.New(mcpserver.Options{Agents: built.Agents, DefaultResource: defaultResource, Logger: logger})
	if err != nil {
		return err
	}
	// The API's guard checks the token first; the MCP server then acts
	// for the resource the guard found.
	mcpHandler, err := asks.Handler(mcpserver.HandlerOptions{
		Authorize: func(r *http.Request) (mcpserver.Caller, error) {
			return mcpserver.Caller{Resource: server.CallerResource(r.Context())}, nil
		},
		MaxBodyBytes: f.Server.MaxBodyBytes,
		AllowedHosts: f.Server.MCP.AllowedHosts,
	})
	if err != nil {
		return err
	}
	cfg := server.Config{
		Agents:       built.Agents,
		MCPServers:   mcpServers(built),
		MCP:          mcpHandler,
		Memory:       store,
		MaxBodyBytes: f.Server.MaxBodyBytes,
		Logger:       logger,
		Console:      ui,
	}
	auth.serverConfig(&cfg)
	tel.serverConfig(&cfg)
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another keel serve running? choose another port with --addr)", addr, err)
	}
	stopMetrics, err := tel.listen(ln.Addr().String(), auth, logger)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopMetrics()
	c.announce(std, ln.Addr().String(), built, where+"; "+sandboxWhere(f, c.agents.sandbox), auth, append([]string{reaping}, tel.lines...))
	stopping := make(chan struct{})
	defer close(stopping)
	go func() {
		select {
		case <-ctx.Done():
			fmt.Fprintln(std.err, "keel serve: stopping: running requests may finish (interrupt again to exit at once)")
		case <-stopping:
		}
	}()
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(std.err, "keel serve: stopped")
	return nil
}

// announce says with what keel serves, how it is protected, and where it
// listens; where says where the threads and the sandboxes are kept.
func (c *serveCmd) announce(std stdio, addr string, built *config.Built, where string, auth *serveAuth, telemetry []string) {
	ids := make([]string, len(built.Agents))
	for i, a := range built.Agents {
		var names []string
		for _, e := range a.Config().Models {
			names = append(names, agent.ModelName(e.Model))
		}
		if len(names) == 0 {
			names = append(names, agent.ModelName(a.Config().Model))
		}
		ids[i] = fmt.Sprintf("%s (%s)", a.ID(), strings.Join(names, ", "))
	}
	fmt.Fprintf(std.err, "keel serve: agents: %s\n", strings.Join(ids, ", "))
	fmt.Fprintf(std.err, "keel serve: storage: %s\n", where)
	printBuilt(std.err, "serve", built)
	for _, line := range append(auth.lines(addr, c.insecureBind), telemetry...) {
		fmt.Fprintf(std.err, "keel serve: %s\n", line)
	}
	fmt.Fprintf(std.err, "keel serve: console at http://%s/\n", addr)
	fmt.Fprintf(std.err, "keel serve: MCP (streamable HTTP) at http://%s%s\n", addr, server.MCPPath)
	if line := mastraStudioLine(addr, auth.CORSOrigins); line != "" {
		fmt.Fprintf(std.err, "keel serve: %s\n", line)
	}
	// Last, so that whoever waits for it knows the rest was said.
	fmt.Fprintf(std.err, "keel serve: listening on http://%s/api\n", addr)
}

// startReaper makes keel reap the processes it adopts (see
// localsandbox.StartReaper): as PID 1 of a container without an init,
// every orphan would otherwise stay a zombie. It returns the line that
// says so at start. The reaper runs until keel exits.
func startReaper() string {
	if _, err := localsandbox.StartReaper(); err != nil {
		if os.Getpid() == 1 {
			return "WARNING: keel is PID 1 and cannot reap orphaned processes, which will stay zombies: " + err.Error()
		}
		return "orphaned processes are left to the system's init: " + err.Error()
	}
	if os.Getpid() == 1 {
		return "running as PID 1: keel reaps the orphaned processes it adopts"
	}
	return "keel reaps the orphaned processes of what it runs (child subreaper)"
}

// isLoopback reports whether addr listens on loopback only.
func isLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, err
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(host)
	if ip == nil {
		// A host name could resolve to anything: only an address proves
		// loopback.
		return false, nil
	}
	return ip.IsLoopback(), nil
}

// mcpServers are the MCP servers of built, for the server to list.
func mcpServers(built *config.Built) []server.MCPServer {
	out := make([]server.MCPServer, len(built.MCP))
	for i, c := range built.MCP {
		out[i] = c
	}
	return out
}
