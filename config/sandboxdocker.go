package config

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// dockerCheckTimeout bounds what Build asks of the engine: connecting,
// building the default image, and making a container to check the
// settings.
const dockerCheckTimeout = 3 * time.Minute

// dockerSandboxes makes the workspaces of the agents whose sandbox
// engine is docker: one connection to the engine, and one resolver for
// all agents of the same settings, checked once.
type dockerSandboxes struct {
	ctx       context.Context
	prefix    string
	engine    *dockersandbox.Engine
	resolvers map[string]*dockersandbox.Resolver
}

// dockerOptions are the options of the agent's docker sandboxes.
func dockerOptions(sb Sandbox) dockersandbox.Options {
	image := cmp.Or(sb.Image, dockersandbox.DefaultImage)
	return dockersandbox.Options{
		Image:       image,
		Runtime:     sb.Runtime,
		IdleTimeout: sb.IdleTimeout,
		CPUs:        sb.Limits.CPUs,
		Limits:      limitsOf(sb.Limits),
	}
}

func resolutionMode(sb Sandbox) localsandbox.Mode {
	switch sb.Resolution {
	case PerThread:
		return localsandbox.PerThread
	case Shared:
		return localsandbox.Shared
	}
	return localsandbox.PerResource
}

// resolver returns the resolver of the agent's settings, connecting to
// the engine (DOCKER_HOST) and checking the settings on first need. The
// default image is built when the engine lacks it; any other image must
// be there.
func (d *dockerSandboxes) resolver(a Agent) (*dockersandbox.Resolver, error) {
	opts, mode := dockerOptions(a.Sandbox), resolutionMode(a.Sandbox)
	opts.Prefix = d.prefix
	key := fmt.Sprintf("%d %#v", mode, opts)
	if r := d.resolvers[key]; r != nil {
		return r, nil
	}
	ctx, cancel := context.WithTimeout(d.ctx, dockerCheckTimeout)
	defer cancel()
	if d.engine == nil {
		e, err := dockersandbox.Connect(ctx, "")
		if err != nil {
			return nil, err
		}
		d.engine = e
	}
	if opts.Image == dockersandbox.DefaultImage {
		if err := d.defaultImage(ctx); err != nil {
			return nil, err
		}
	}
	r, err := dockersandbox.NewResolver(ctx, d.engine, mode, opts)
	if err != nil {
		return nil, err
	}
	if d.resolvers == nil {
		d.resolvers = make(map[string]*dockersandbox.Resolver)
	}
	d.resolvers[key] = r
	return r, nil
}

// defaultImage builds the default image from the machine's static
// busybox when the engine lacks it.
func (d *dockerSandboxes) defaultImage(ctx context.Context) error {
	has, err := d.engine.HasImage(ctx, dockersandbox.DefaultImage)
	if err != nil || has {
		return err
	}
	if _, err := os.Stat(dockersandbox.DefaultBusybox); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the engine has no image %s, and keel builds it from %s, which is missing: install busybox-static, or name an image with sandbox.image (docs/docker.md)",
			dockersandbox.DefaultImage, dockersandbox.DefaultBusybox)
	}
	return dockersandbox.BuildImage(ctx, d.engine, dockersandbox.DefaultImage, dockersandbox.DefaultBusybox, 0, 0)
}

func (d *dockerSandboxes) workspace(a Agent) (*workspace.Workspace, error) {
	r, err := d.resolver(a)
	if err != nil {
		return nil, err
	}
	return workspace.NewResolved(r), nil
}

// status is how the agent's sandbox commands run; its resolver was made
// with its workspace.
func (d *dockerSandboxes) status(a Agent) statusLine {
	r, _ := d.resolver(a)
	return r.Status()
}
