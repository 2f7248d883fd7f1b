package mcpclient

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/keel-go/keel/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolList is the tools a server offers, as keel tools.
type toolList struct {
	tools  []tool.Tool
	mcp    []string          // the server's name of each tool, in order
	byMCP  map[string]int    // index in tools, by the server's name
	dups   map[string]string // a keel name two tools map to: the first's server name
	dupsOf map[string]string // ... and the second's
}

func (l *toolList) names() []string {
	names := make([]string, len(l.tools))
	for i, t := range l.tools {
		names[i] = t.Name
	}
	return names
}

// dupError says which tools share a name.
func (l *toolList) dupError() error {
	var msgs []string
	for name, first := range l.dups {
		msgs = append(msgs, fmt.Sprintf("tools %q and %q are both %s to a model", first, l.dupsOf[name], name))
	}
	slices.Sort(msgs)
	return errors.New(strings.Join(msgs, "; ") + ": a model's tool names hold letters, digits, '_' and '-' only")
}

// listTools lists the server's tools, page by page, as keel tools.
func (c *Client) listTools(ctx context.Context, sess *sdk.ClientSession) (*toolList, error) {
	l := &toolList{byMCP: make(map[string]int)}
	byName := make(map[string]string)
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		name := ToolName(c.cfg.Name, t.Name)
		if first, dup := byName[name]; dup {
			if l.dups == nil {
				l.dups, l.dupsOf = make(map[string]string), make(map[string]string)
			}
			l.dups[name], l.dupsOf[name] = first, t.Name
			continue
		}
		byName[name] = t.Name
		schema, err := json.Marshal(t.InputSchema)
		if err != nil || t.InputSchema == nil {
			schema = nil
		}
		desc := cmp.Or(t.Description, t.Title)
		l.byMCP[t.Name] = len(l.tools)
		l.mcp = append(l.mcp, t.Name)
		l.tools = append(l.tools, tool.Tool{Name: name, Description: desc, InputSchema: schema, Execute: c.executor(t.Name, name)})
	}
	return l, nil
}

// toolsChanged lists the server's tools again when it says they changed.
// It runs off the connection's goroutine: a listing waits for answers the
// connection's reader must deliver.
func (c *Client) toolsChanged(_ context.Context, req *sdk.ToolListChangedRequest) {
	go c.refresh(req.Session)
}

func (c *Client) refresh(sess *sdk.ClientSession) {
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	ctx, cancel := context.WithTimeout(c.base, c.cfg.Timeout)
	defer cancel()
	list, err := c.listTools(ctx, sess)
	if err != nil {
		if c.base.Err() == nil {
			c.logger.Warn("mcp server changed its tools, and listing them failed; keeping the last list", "server", c.cfg.Name, "err", err)
		}
		return
	}
	if len(list.dups) > 0 {
		// At start this is an error; a running agent keeps the first
		// of the two rather than losing the server.
		c.logger.Warn("mcp server lists tools a model cannot tell apart; keeping the first of each", "server", c.cfg.Name, "err", list.dupError())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil || c.conn.sess != sess {
		return // a listing of a connection gone since
	}
	c.tools = list
	c.logger.Info("mcp server changed its tools", "server", c.cfg.Name, "tools", len(list.tools))
}

// ServerTool is a tool a server offers, under the server's name for it
// and as the model sees it.
type ServerTool struct {
	// Name is the server's name for the tool, such as "echo": what
	// keel.yaml's "SERVER/TOOL" names.
	Name string
	// Tool is the keel tool; its Name is the model's, "everything_echo".
	Tool tool.Tool
}

// ServerTools returns the tools the server offers now, in its order, each
// with the server's name for it.
func (c *Client) ServerTools() []ServerTool {
	c.mu.Lock()
	l := c.tools
	c.mu.Unlock()
	out := make([]ServerTool, len(l.tools))
	for i, t := range l.tools {
		out[i] = ServerTool{Name: l.mcp[i], Tool: t}
	}
	return out
}

// Only returns a [tool.Set] of the server's tools that the server names
// as names (not as the model sees them), as they are now: a tool the
// server stops offering leaves the set, and comes back with the server.
func (c *Client) Only(names ...string) tool.Set {
	return &only{c: c, names: names}
}

type only struct {
	c     *Client
	names []string
}

func (o *only) Tools() []tool.Tool {
	o.c.mu.Lock()
	l := o.c.tools
	o.c.mu.Unlock()
	out := make([]tool.Tool, 0, len(o.names))
	for _, n := range o.names {
		if i, ok := l.byMCP[n]; ok {
			out = append(out, l.tools[i])
		}
	}
	return out
}

// Has reports whether the server offers the tool it names name, and
// returns the names of those it offers, in its order, to say what else
// there is.
func (c *Client) Has(name string) (bool, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.tools.byMCP[name]
	return ok, slices.Clone(c.tools.mcp)
}

// executor returns the Execute of the tool the server names mcpName and
// the model keelName.
func (c *Client) executor(mcpName, keelName string) func(context.Context, tool.Call) (any, error) {
	return func(ctx context.Context, call tool.Call) (any, error) {
		out, err := c.call(ctx, mcpName, keelName, call.Input)
		if err != nil && !isToolError(err) && ctx.Err() == nil {
			return nil, fmt.Errorf("mcp: %s: %w", keelName, err)
		}
		return out, err
	}
}

// errCallTimeout is the cause of a call's end when its time ran out.
var errCallTimeout = errors.New("call timeout")

// call calls the tool and maps its answer. Errors say what happened in
// words a model can act on.
func (c *Client) call(ctx context.Context, mcpName, keelName string, input json.RawMessage) (any, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.cfg.Timeout, errCallTimeout)
	defer cancel()
	cn, err := c.ready(ctx)
	for err == nil && cn.exited() {
		// The server died since the supervisor last looked: wait for
		// the next one rather than fail on a pipe known to be broken.
		c.markDown(cn)
		cn, err = c.ready(ctx)
	}
	if err != nil {
		return nil, c.callError(ctx, nil, err)
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	res, err := cn.sess.CallTool(ctx, &sdk.CallToolParams{Name: mcpName, Arguments: input})
	if err != nil {
		return nil, c.callError(ctx, cn, err)
	}
	return toResult(keelName, res)
}

func (c *Client) callError(ctx context.Context, cn *conn, err error) error {
	var rpcErr *jsonrpc.Error
	switch {
	case errors.Is(context.Cause(ctx), errCallTimeout):
		return fmt.Errorf("no answer within %s (the server's timeout); the call was cancelled", c.cfg.Timeout)
	case ctx.Err() != nil, errors.Is(err, ErrClosed), cn == nil:
		return err
	case errors.As(err, &rpcErr):
		return err // the server's own answer: an unknown tool, bad arguments
	}
	// The connection failed under the call. A stdio server that exits
	// says why; the pipe closing may come just before its exit.
	if cn.proc != nil && cn.proc.waitExit(exitGrace) {
		c.markDown(cn)
		return fmt.Errorf("the server stopped during the call (%v); it is being started again, so the call may be tried again", cn.proc.exitError())
	}
	if errors.Is(err, sdk.ErrConnectionClosed) {
		c.markDown(cn)
		return fmt.Errorf("the connection to the server closed during the call (%v); it is being made again, so the call may be tried again", err)
	}
	return err
}
