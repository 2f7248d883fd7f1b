package mcpclient

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/keel-go/keel/mcp/internal/impl"
	"github.com/keel-go/keel/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultTimeout is how long a call may take when [Config].Timeout is 0,
// and a start when [Config].StartTimeout is.
const DefaultTimeout = 60 * time.Second

// Config describes one MCP server to take tools from: a command keel runs
// and speaks to over its standard input and output (stdio), or the URL of
// a streamable-HTTP server. Give Command or URL, not both.
type Config struct {
	// Name names the server in keel.yaml and starts the names of its
	// tools ("Name_tool"): 1 to [MaxServerName] letters, digits, '_' or
	// '-'. Required.
	Name string

	// Command is the program of a stdio server, found in PATH like a
	// shell would; Args its arguments.
	Command string
	Args    []string
	// Env is added to the server's environment, which holds only
	// [InheritedEnv] of keel's own. Values may name keel's environment
	// variables as ${NAME}.
	Env map[string]string
	// Dir is the server's working directory; "" is keel's.
	Dir string

	// URL is the endpoint of a streamable-HTTP server.
	URL string
	// Headers are sent with every request to URL. Values may name
	// environment variables as ${NAME}, such as "Bearer ${SEARCH_TOKEN}".
	Headers map[string]string
	// HTTPClient's Transport, when set, carries the requests (the
	// headers are added to what it sends); nil uses
	// http.DefaultTransport.
	HTTPClient *http.Client

	// Timeout bounds each call; 0 means [DefaultTimeout]. A call that
	// runs out is cancelled: the server is told (notifications/cancelled)
	// and the model gets a tool error.
	Timeout time.Duration
	// StartTimeout bounds each start: the server's program starting (npx
	// may download it first), the handshake and the tools' listing; 0
	// means [DefaultTimeout].
	StartTimeout time.Duration
	// LookupEnv reads the environment variables that Env and Headers
	// name, and those of InheritedEnv; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Logger receives the client's logs (restarts, a changed tool list)
	// and, at debug level, the server's standard error; nil means
	// slog.Default().
	Logger *slog.Logger
}

// State says whether a server is running.
type State string

// The states of a server.
const (
	// Running: connected, and its tools can be called.
	Running State = "running"
	// Starting: a connection is being made, at start or after a stop.
	Starting State = "starting"
	// Restarting: the server stopped and is started again after a delay.
	Restarting State = "restarting"
	// Closed: [Client.Close] was called.
	Closed State = "closed"
)

// Status is what a [Client] reports about its server.
type Status struct {
	Name string `json:"name"`
	// Transport is "stdio" or "http".
	Transport string `json:"transport"`
	State     State  `json:"state"`
	// ServerName and ServerVersion are what the server says it is.
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	// PID is a stdio server's process ID while it runs; 0 otherwise.
	PID int `json:"pid,omitempty"`
	// Restarts counts the server's restarts since [Start].
	Restarts int `json:"restarts"`
	// LastError is why the server last stopped or failed to start.
	LastError string `json:"lastError,omitempty"`
	// Tools are the names the model sees, in the server's order.
	Tools []string `json:"tools"`
}

// ErrClosed is returned by calls made after [Client.Close].
var ErrClosed = errors.New("mcpclient: client closed")

// StartError is the error of a server that could not start: its command
// did not run, it exited, it did not answer the handshake in time, or it
// did not list its tools.
type StartError struct {
	Server string
	Err    error
}

func (e *StartError) Error() string {
	return fmt.Sprintf("mcpclient: start server %s: %v", e.Server, e.Err)
}

func (e *StartError) Unwrap() error { return e.Err }

// Client is a connection to one MCP server and the keel tools it offers.
// It starts the server once, lists its tools at start and whenever the
// server says they changed, and starts it again, with a growing delay,
// when it stops. It is safe for concurrent use; the server runs calls at
// once as far as it allows. [Client.Close] stops it.
type Client struct {
	cfg     Config
	env     []string
	headers http.Header
	sdk     *sdk.Client
	logger  *slog.Logger
	base    context.Context // cancelled by Close
	cancel  context.CancelFunc
	done    chan struct{} // closed when the supervisor ends

	refreshMu sync.Mutex // one tool listing at a time

	mu       sync.Mutex
	state    State
	conn     *conn         // nil while the server is down
	changed  chan struct{} // closed and replaced at each change of state
	lastErr  error
	nextTry  time.Time
	restarts int
	tools    *toolList
}

// conn is one connection to the server: a session, and for stdio the
// process.
type conn struct {
	sess *sdk.ClientSession
	proc *process
}

// exited reports whether a stdio server's process has ended.
func (cn *conn) exited() bool {
	if cn.proc == nil {
		return false
	}
	select {
	case <-cn.proc.exited:
		return true
	default:
		return false
	}
}

// close ends the session, and stops a stdio server.
func (cn *conn) close() {
	_ = cn.sess.Close()
	if cn.proc != nil {
		cn.proc.stop()
	}
}

// Start starts the server cfg describes (or connects to it), lists its
// tools, and returns a client for it. ctx bounds the start only, with
// cfg.StartTimeout. A server that cannot start is a [*StartError] saying why,
// with the last lines of its standard error; a variable that Env or
// Headers name and that is not set wraps [ErrUnsetVariable].
func Start(ctx context.Context, cfg Config) (*Client, error) {
	c, err := newClient(cfg)
	if err != nil {
		return nil, &StartError{Server: cfg.Name, Err: err}
	}
	cn, err := c.connect(ctx)
	if err != nil {
		c.cancel()
		return nil, &StartError{Server: cfg.Name, Err: err}
	}
	c.mu.Lock()
	c.conn, c.state = cn, Running
	c.mu.Unlock()
	go c.supervise(cn)
	return c, nil
}

func newClient(cfg Config) (*Client, error) {
	switch {
	case !ValidServerName(cfg.Name):
		return nil, fmt.Errorf("name %q: use 1 to %d letters, digits, '_' or '-'", cfg.Name, MaxServerName)
	case cfg.Command == "" && cfg.URL == "":
		return nil, errors.New("give a command to run, or the URL of a streamable-HTTP server")
	case cfg.Command != "" && cfg.URL != "":
		return nil, errors.New("give a command or a URL, not both")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultTimeout
	}
	if cfg.LookupEnv == nil {
		cfg.LookupEnv = os.LookupEnv
	}
	c := &Client{cfg: cfg, logger: cmp.Or(cfg.Logger, slog.Default()), done: make(chan struct{}), changed: make(chan struct{}),
		state: Starting, tools: &toolList{}}
	var err error
	if cfg.Command != "" {
		if len(cfg.Headers) > 0 {
			return nil, errors.New("headers go to an HTTP server: a stdio server takes env")
		}
		c.env, err = environment(cfg.Env, cfg.LookupEnv)
	} else {
		if len(cfg.Env) > 0 {
			return nil, errors.New("env goes to a server keel runs: an HTTP server takes headers")
		}
		if err = checkURL(cfg.URL); err == nil {
			c.headers, err = httpHeaders(cfg.Headers, cfg.LookupEnv)
		}
	}
	if err != nil {
		return nil, err
	}
	c.base, c.cancel = context.WithCancel(context.Background())
	c.sdk = sdk.NewClient(impl.Keel(), &sdk.ClientOptions{
		// keel offers servers no roots, sampling or elicitation.
		Capabilities:           &sdk.ClientCapabilities{},
		ToolListChangedHandler: c.toolsChanged,
		Logger:                 slog.New(slog.DiscardHandler),
	})
	return c, nil
}

// connect starts (or reaches) the server, makes the handshake and lists
// its tools, within the timeout.
func (c *Client) connect(ctx context.Context) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	defer cancel()
	cn := &conn{}
	var t sdk.Transport
	if c.cfg.Command != "" {
		p, stdout, err := startProcess(&c.cfg, c.env, c.logger)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", describeCommand(&c.cfg), err)
		}
		cn.proc, t = p, &stdioTransport{p: p, stdout: stdout}
	} else {
		t = httpTransport(&c.cfg, c.headers)
	}
	// fail cleans up after a failed start. When the server may have
	// died (the pipe closed under the handshake or the listing), its
	// exit, which comes just after, says more than the broken pipe.
	fail := func(err error, mayHaveDied bool) (*conn, error) {
		timedOut := ctx.Err() != nil
		if timedOut {
			err = fmt.Errorf("no answer within %s (%v)", c.cfg.StartTimeout, err)
		}
		if cn.proc != nil {
			switch {
			case !timedOut && mayHaveDied && cn.proc.waitExit(exitGrace):
				err = cn.proc.exitError()
			case timedOut:
				if tail := cn.proc.Stderr(); tail != "" {
					err = fmt.Errorf("%w; its last output: %s", err, lastLines(tail, 5))
				}
			}
		}
		if cn.sess != nil {
			_ = cn.sess.Close()
		}
		if cn.proc != nil {
			cn.proc.stop()
		}
		return nil, err
	}
	sess, err := c.sdk.Connect(ctx, t, nil)
	if err != nil {
		return fail(err, true)
	}
	cn.sess = sess
	list, err := c.listTools(ctx, sess)
	if err != nil {
		return fail(fmt.Errorf("list tools: %w", err), true)
	}
	if len(list.dups) > 0 {
		return fail(list.dupError(), false)
	}
	c.mu.Lock()
	c.tools = list
	c.mu.Unlock()
	return cn, nil
}

// supervise waits for the server to stop, unless Close stops it first,
// and starts it again, each failure in a row waiting longer.
func (c *Client) supervise(cn *conn) {
	defer close(c.done)
	failures := 0
	for {
		upAt := time.Now()
		stopped := make(chan struct{})
		go func() {
			_ = cn.sess.Wait()
			close(stopped)
		}()
		select {
		case <-c.base.Done():
			cn.close()
			<-stopped
			return
		case <-stopped:
		}
		cn.close()
		err := errors.New("the connection closed")
		if cn.proc != nil {
			err = cn.proc.exitError()
		}
		c.logger.Warn("mcp server stopped; starting it again", "server", c.cfg.Name, "err", err)
		if time.Since(upAt) > stableFor {
			failures = 0
		}
		for {
			delay := backoff(failures)
			failures++
			c.setDown(err, delay)
			t := time.NewTimer(delay)
			select {
			case <-c.base.Done():
				t.Stop()
				return
			case <-t.C:
			}
			c.setState(Starting)
			cn, err = c.connect(c.base)
			if err == nil {
				break
			}
			if c.base.Err() != nil {
				return
			}
			c.logger.Warn("mcp server did not start again", "server", c.cfg.Name, "err", err)
		}
		c.mu.Lock()
		c.conn, c.state, c.lastErr = cn, Running, nil
		c.restarts++
		c.broadcast()
		c.mu.Unlock()
		c.logger.Info("mcp server started again", "server", c.cfg.Name)
	}
}

// stableFor is how long a server must have run for its next stop to be
// restarted at once, as a first failure is.
const stableFor = time.Minute

// backoff is the delay before the start that follows n failures in a
// row: none after the first (a crash is restarted at once), then 250 ms,
// doubling up to 30 s.
func backoff(n int) time.Duration {
	if n == 0 {
		return 0
	}
	d := 250 * time.Millisecond << min(n-1, 7)
	return min(d, 30*time.Second)
}

func (c *Client) setDown(err error, delay time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn, c.lastErr, c.state, c.nextTry = nil, err, Restarting, time.Now().Add(delay)
	c.broadcast()
}

// markDown takes cn out of service when a call found it broken before the
// supervisor did, so that the calls that follow wait for the next
// connection instead of failing on this one.
func (c *Client) markDown(cn *conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == cn {
		c.conn, c.state = nil, Starting
		c.broadcast()
		// Closing the session ends the supervisor's wait on it, if the
		// transport has not; Close waits for the calls still on it.
		go cn.sess.Close()
	}
}

func (c *Client) setState(s State) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = s
	c.broadcast()
}

// broadcast wakes the calls waiting for a change of state; c.mu is held.
func (c *Client) broadcast() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// ready returns the live connection, waiting for one that is being made,
// or for the next start when it comes before ctx's deadline.
func (c *Client) ready(ctx context.Context) (*conn, error) {
	for {
		c.mu.Lock()
		state, cn, ch, lastErr, next := c.state, c.conn, c.changed, c.lastErr, c.nextTry
		c.mu.Unlock()
		switch {
		case state == Closed:
			return nil, ErrClosed
		case cn != nil:
			return cn, nil
		case state == Restarting:
			if dl, ok := ctx.Deadline(); ok && dl.Before(next) {
				return nil, fmt.Errorf("the server is down (%v) and starts again in %s", lastErr, time.Until(next).Round(time.Millisecond))
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
}

// Name returns the server's name.
func (c *Client) Name() string { return c.cfg.Name }

// Status reports the server's state and tools.
func (c *Client) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{Name: c.cfg.Name, Transport: "stdio", State: c.state, Restarts: c.restarts, Tools: c.tools.names()}
	if c.cfg.URL != "" {
		st.Transport = "http"
	}
	if c.lastErr != nil {
		st.LastError = c.lastErr.Error()
	}
	if c.conn != nil {
		if res := c.conn.sess.InitializeResult(); res != nil && res.ServerInfo != nil {
			st.ServerName, st.ServerVersion = res.ServerInfo.Name, res.ServerInfo.Version
		}
		if c.conn.proc != nil {
			st.PID = c.conn.proc.cmd.Process.Pid
		}
	}
	return st
}

// Close stops the server (a stdio server's whole process group) and
// waits for it; calls still running fail. Close is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.state == Closed {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.state = Closed
	c.broadcast()
	c.mu.Unlock()
	c.cancel()
	<-c.done
	return nil
}

// Tools returns the tools the server offers now, named as the model sees
// them. Client is a [tool.Set].
func (c *Client) Tools() []tool.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools.tools
}
