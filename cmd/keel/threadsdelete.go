package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/memory"
)

// threadsDeleteCmd is keel threads delete.
type threadsDeleteCmd struct {
	resource string
	storage  storageFlags
	agents   agentFlags
}

// Run runs keel threads delete with args: the thread and its messages go
// from the store, and the files uploaded for it from the sandboxes of the
// configuration's agents, as the server's DELETE does.
func (c *threadsDeleteCmd) Run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel threads delete", "keel threads delete [flags] ID", std.err)
	fs.StringVar(&c.resource, "resource", defaultResource, "the thread's owner")
	c.storage.register(fs)
	c.agents.registerPaths(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("give one thread id: keel threads delete ID (keel threads list shows them)")
	}
	id := pos[0]
	if !memory.ValidID(id) || !memory.ValidID(c.resource) {
		return usagef("ids are 1 to %d of A-Z a-z 0-9 . _ : -", memory.MaxIDLength)
	}
	f, err := c.agents.load()
	if err != nil {
		return err
	}
	store, _, err := c.storage.open(ctx, false)
	if err != nil {
		return err
	}
	defer store.Close()
	agents, err := c.sandboxAgents(ctx, f, store)
	if err != nil {
		return err
	}
	err = agent.DeleteThread(ctx, store, agents, c.resource, id)
	if errors.Is(err, memory.ErrNotFound) {
		return fmt.Errorf("resource %s has no thread %s (keel threads list --resource %s shows its threads)", c.resource, id, c.resource)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(std.err, "keel threads delete: deleted thread %s of resource %s, with the files uploaded for it\n", id, c.resource)
	return nil
}

// sandboxAgents builds the configuration's agents, for their sandboxes
// only: no model is resolved, and nothing is said about them. Without a
// sandbox root, and without docker sandboxes, there is nothing to remove,
// and no root is made.
func (c *threadsDeleteCmd) sandboxAgents(ctx context.Context, f *config.File, store memory.Store) ([]*agent.Agent, error) {
	if _, err := os.Stat(c.agents.sandbox); errors.Is(err, os.ErrNotExist) && !usesDocker(f) {
		return nil, nil
	}
	built, err := f.BuildContext(ctx, config.BuildOptions{
		DockerPrefix: os.Getenv(envSandboxPrefix),
		ResolveModel: func(string) (keel.Model, error) { return nil, config.ErrModelUnavailable },
		Memory:       store,
		SandboxRoot:  c.agents.sandbox,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, err
	}
	return built.Agents, nil
}
