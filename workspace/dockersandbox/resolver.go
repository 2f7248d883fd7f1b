package dockersandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// reapAge is how old a container that was made but never started must be
// before a reaper removes it: older than any create-then-start takes.
var reapAge = time.Minute

// Resolver gives each run the sandbox of its resource (by default), its
// thread, or one for all, on one engine, as localsandbox's resolver does
// with directories. It keeps no state but the engine's answers at start,
// so any number of keel servers made from the same settings share their
// sandboxes: the same key gives the same container and volume names
// everywhere. A Resolver is safe for concurrent use.
type Resolver struct {
	engine   *Engine
	mode     localsandbox.Mode
	opts     Options
	status   Status
	lastReap atomic.Int64
}

// NewResolver checks that sandboxes of opts can run on engine ([Check]:
// the image is there, the runtime known, a container starts and runs a
// command) and returns their resolver, one sandbox per resource, per
// thread, or one for all, depending on mode. The error says what is
// missing; keel reports it at start rather than at a run's first
// command.
func NewResolver(ctx context.Context, engine *Engine, mode localsandbox.Mode, opts Options) (*Resolver, error) {
	st, err := Check(ctx, engine, opts)
	if err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	opts.imageID = st.ImageID
	r := &Resolver{engine: engine, mode: mode, opts: opts, status: st}
	r.lastReap.Store(time.Now().UnixNano())
	return r, nil
}

// Sharing implements [workspace.SharingReporter]: the resolver's mode.
func (r *Resolver) Sharing() workspace.Sharing { return r.mode.Sharing() }

// RemoveThread implements [workspace.ThreadRemover]: per thread, it
// removes the thread's sandbox as [Resolver.Remove] does, container and
// volume, on the engine every server shares; other modes remove nothing.
func (r *Resolver) RemoveThread(ctx context.Context, scope workspace.Scope) (bool, error) {
	if r.mode != localsandbox.PerThread {
		return false, nil
	}
	if err := r.Remove(ctx, scope); err != nil {
		return false, err
	}
	return true, nil
}

// Status returns how the resolver's sandboxes run, as found at start.
func (r *Resolver) Status() Status { return r.status }

// Key returns the sandbox key of scope in the resolver's mode: "resource-"
// or "thread-" and [localsandbox.DirName] of the ID, or "shared". A scope
// missing the ID its mode needs is an error wrapping
// [workspace.ErrNoSandbox].
func (r *Resolver) Key(scope workspace.Scope) (string, error) {
	switch r.mode {
	case localsandbox.PerResource:
		if scope.ResourceID == "" {
			return "", fmt.Errorf("dockersandbox: resolve: per-resource sandbox needs a resource ID: %w", workspace.ErrNoSandbox)
		}
		return "resource-" + localsandbox.DirName(scope.ResourceID), nil
	case localsandbox.PerThread:
		if scope.ThreadID == "" {
			return "", fmt.Errorf("dockersandbox: resolve: per-thread sandbox needs a thread ID: %w", workspace.ErrNoSandbox)
		}
		return "thread-" + localsandbox.DirName(scope.ThreadID), nil
	case localsandbox.Shared:
		return "shared", nil
	}
	return "", fmt.Errorf("dockersandbox: resolve: unknown mode %v", r.mode)
}

// Resolve returns the sandbox of scope. Nothing is made on the engine
// until the sandbox is used. Now and then (once per idle time) it also
// starts, in the background, a [Resolver.Reap].
func (r *Resolver) Resolve(ctx context.Context, scope workspace.Scope) (workspace.Sandbox, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("dockersandbox: resolve: %w", err)
	}
	key, err := r.Key(scope)
	if err != nil {
		return nil, err
	}
	sb, err := New(r.engine, key, r.opts)
	if err != nil {
		return nil, fmt.Errorf("dockersandbox: resolve: %w", err)
	}
	r.maybeReap()
	return sb, nil
}

func (r *Resolver) maybeReap() {
	every := r.opts.IdleTimeout
	if every <= 0 {
		every = DefaultIdleTimeout
	}
	last := r.lastReap.Load()
	now := time.Now().UnixNano()
	if now-last < int64(every) || !r.lastReap.CompareAndSwap(last, now) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = r.Reap(ctx)
	}()
}

// listed is an entry of GET /containers/json.
type listed struct {
	ID      string `json:"Id"`
	Names   []string
	Created int64
	State   string
}

// list returns the containers of the resolver's prefix with the given
// labels ("key=value") and states ("created", "exited"...; none means
// all).
func (r *Resolver) list(ctx context.Context, labels, states []string) ([]listed, error) {
	f := map[string][]string{"label": append([]string{LabelPrefix + "=" + r.opts.Prefix}, labels...)}
	if len(states) > 0 {
		f["status"] = states
	}
	raw, _ := json.Marshal(f)
	var out []listed
	err := r.engine.call(ctx, "GET", "/containers/json", url.Values{"all": {"1"}, "filters": {string(raw)}}, nil, &out)
	return out, err
}

// Reap removes the containers of the resolver's prefix, made by any
// server, that no longer run: stopped ones the engine did not remove,
// and ones made but never started (their server died in between) for a
// minute or more. Running containers stop by themselves when idle. It
// returns how many it removed.
func (r *Resolver) Reap(ctx context.Context) (int, error) {
	found, err := r.list(ctx, nil, []string{"created", "exited", "dead"})
	if err != nil {
		return 0, fmt.Errorf("dockersandbox: reap: %w", err)
	}
	n := 0
	var errs []error
	for _, c := range found {
		if c.State == "created" && time.Since(time.Unix(c.Created, 0)) < reapAge {
			continue
		}
		err := r.engine.call(ctx, "DELETE", "/containers/"+c.ID, url.Values{"force": {"1"}}, nil, nil)
		switch {
		case err == nil:
			n++
		case !isStatus(err, 404) && !isStatus(err, 409):
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("dockersandbox: reap: %w", err)
	}
	return n, nil
}

// Remove deletes the sandbox of scope: its containers, whatever their
// settings, and its volume with every file in it. Use it when what the
// sandbox belongs to is deleted (a per-thread sandbox's thread, a
// resource); a later use makes a new, empty one.
func (r *Resolver) Remove(ctx context.Context, scope workspace.Scope) error {
	key, err := r.Key(scope)
	if err != nil {
		return err
	}
	sb, err := New(r.engine, key, r.opts)
	if err != nil {
		return fmt.Errorf("dockersandbox: remove: %w", err)
	}
	found, err := r.list(ctx, []string{LabelKey + "=" + key}, nil)
	if err != nil {
		return fmt.Errorf("dockersandbox: remove: %w", err)
	}
	for _, c := range found {
		if err := r.engine.call(ctx, "DELETE", "/containers/"+c.ID, url.Values{"force": {"1"}}, nil, nil); err != nil && !isStatus(err, 404) && !isStatus(err, 409) {
			return fmt.Errorf("dockersandbox: remove container %s: %w", c.ID, err)
		}
	}
	return sb.removeVolume(ctx)
}

// destroy removes the sandbox's own container, by force, and its volume.
func (s *Sandbox) destroy(ctx context.Context) error {
	err := s.engine.call(ctx, "DELETE", "/containers/"+s.name, url.Values{"force": {"1"}}, nil, nil)
	if err != nil && !isStatus(err, 404) && !isStatus(err, 409) {
		return fmt.Errorf("dockersandbox: remove container %s: %w", s.name, err)
	}
	return s.removeVolume(ctx)
}

// removeVolume removes the volume once no container holds it: a
// container being removed still does for a moment.
func (s *Sandbox) removeVolume(ctx context.Context) error {
	delay := 50 * time.Millisecond
	for {
		err := s.engine.call(ctx, "DELETE", "/volumes/"+s.volume, nil, nil, nil)
		switch {
		case err == nil || isStatus(err, 404):
			return nil
		case !isStatus(err, 409):
			return fmt.Errorf("dockersandbox: remove volume %s: %w", s.volume, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dockersandbox: remove volume %s: %w", s.volume, err)
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Second)
	}
}

// Purge removes every container and volume of the sandboxes with the
// given prefix ([Options].Prefix), made by any server, with all their
// files: what uninstalling keel's sandboxes from an engine takes.
func Purge(ctx context.Context, e *Engine, prefix string) error {
	r := &Resolver{engine: e, opts: Options{Prefix: prefix}}
	found, err := r.list(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("dockersandbox: purge: %w", err)
	}
	for _, c := range found {
		if err := e.call(ctx, "DELETE", "/containers/"+c.ID, url.Values{"force": {"1"}}, nil, nil); err != nil && !isStatus(err, 404) && !isStatus(err, 409) {
			return fmt.Errorf("dockersandbox: purge: remove container %s: %w", c.ID, err)
		}
	}
	raw, _ := json.Marshal(map[string][]string{"label": {LabelPrefix + "=" + prefix}})
	var vols struct {
		Volumes []struct{ Name string }
	}
	if err := e.call(ctx, "GET", "/volumes", url.Values{"filters": {string(raw)}}, nil, &vols); err != nil {
		return fmt.Errorf("dockersandbox: purge: %w", err)
	}
	for _, v := range vols.Volumes {
		sb := &Sandbox{engine: e, volume: v.Name}
		if err := sb.removeVolume(ctx); err != nil {
			return fmt.Errorf("dockersandbox: purge: %w", err)
		}
	}
	return nil
}
