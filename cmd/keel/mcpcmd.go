package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/keel-go/keel/mcp/mcpserver"
	"github.com/keel-go/keel/memory"
)

// mcpCmd is keel mcp: the agents as MCP tools, over standard input and
// output, for a client that starts keel (Claude Desktop, an IDE, another
// agent). Standard output carries the protocol alone: everything keel
// says goes to standard error.
type mcpCmd struct {
	agentID  string
	resource string
	storage  storageFlags
	agents   agentFlags
}

// Run runs keel mcp with args, until the client closes standard input or
// keel is interrupted.
func (c *mcpCmd) Run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel mcp", "keel mcp [flags]", std.err)
	fs.StringVar(&c.agentID, "agent", "", "offer only this agent (default: every agent of the configuration)")
	fs.StringVar(&c.resource, "resource", defaultResource, "whose threads the asks are, when a call names no resourceId")
	c.storage.register(fs)
	c.agents.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected %q: keel mcp takes flags only; a client starts it and speaks MCP on its standard input and output", pos[0])
	}
	if !memory.ValidID(c.resource) {
		return usagef("--resource %q: use 1 to %d of A-Z a-z 0-9 . _ : -", c.resource, memory.MaxIDLength)
	}
	f, err := c.agents.load()
	if err != nil {
		return err
	}
	if c.agentID != "" {
		if _, err := pickAgent(f, c.agentID); err != nil {
			return err
		}
	}
	store, where, err := c.storage.open(ctx, true)
	if err != nil {
		return err
	}
	defer store.Close()
	logger := newLogger(std.err, slog.LevelInfo)
	built, err := c.agents.build(ctx, f, store, logger, "mcp", c.agentID)
	if err != nil {
		return err
	}
	defer built.Close()
	srv, err := mcpserver.New(mcpserver.Options{Agents: built.Agents, DefaultResource: c.resource, Logger: logger})
	if err != nil {
		return err
	}
	printBuilt(std.err, "mcp", built)
	fmt.Fprintf(std.err, "keel mcp: storage: %s; tools: %s; serving MCP on standard input and output\n",
		where, strings.Join(srv.Tools(), ", "))
	if err := srv.ServeStdio(ctx, std.in, std.out); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
