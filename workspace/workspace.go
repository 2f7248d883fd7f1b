package workspace

import (
	"context"
	"fmt"
)

// Scope identifies whom a sandbox is resolved for.
type Scope struct {
	AgentID    string
	ThreadID   string
	ResourceID string
}

// Resolver chooses the sandbox of a run. Implementations are safe for
// concurrent use.
type Resolver interface {
	Resolve(ctx context.Context, scope Scope) (Sandbox, error)
}

// ResolverFunc adapts a function to a [Resolver].
type ResolverFunc func(ctx context.Context, scope Scope) (Sandbox, error)

// Resolve calls f.
func (f ResolverFunc) Resolve(ctx context.Context, scope Scope) (Sandbox, error) {
	return f(ctx, scope)
}

// HasSandbox reports whether w may give a run a sandbox: it holds one,
// or a resolver that may find one. A nil workspace, or one made by [New]
// with a nil sandbox, has none for any run.
func (w *Workspace) HasSandbox() bool {
	return w != nil && (w.resolver != nil || w.sandbox != nil)
}

// Sharing says which runs share a workspace's sandboxes, so that whoever
// shows or serves a sandbox knows whose files it may hold.
type Sharing string

// The sharings a workspace reports.
const (
	// PerResource: each resource (user) has its own sandbox.
	PerResource Sharing = "per-resource"
	// PerThread: each thread has its own sandbox.
	PerThread Sharing = "per-thread"
	// Shared: every run uses one sandbox, which may hold every user's
	// files.
	Shared Sharing = "shared"
	// SharingUnknown: a resolver that does not say; treat it as Shared
	// when it matters whose files a sandbox holds.
	SharingUnknown Sharing = "unknown"
)

// SharingReporter is implemented by resolvers that know which runs share
// the sandboxes they resolve (localsandbox's resolver does).
type SharingReporter interface {
	Sharing() Sharing
}

// ThreadRemover is implemented by resolvers that can give a thread a
// sandbox of its own (localsandbox's and dockersandbox's, per thread):
// RemoveThread removes the sandbox that belongs to scope's thread alone,
// with every file in it, and reports true; it removes nothing and reports
// false when the resolver's sandboxes are not per thread, so that the
// caller removes the thread's uploads from the shared sandbox instead. A
// thread whose sandbox was never made is removed at no cost.
type ThreadRemover interface {
	RemoveThread(ctx context.Context, scope Scope) (bool, error)
}

// Workspace is where an agent keeps files and runs commands: one sandbox
// for everyone, or one chosen per run by a [Resolver]. A nil *Workspace has
// no sandbox. A Workspace is safe for concurrent use.
type Workspace struct {
	sandbox  Sandbox
	resolver Resolver
}

// New returns a workspace whose every run uses sb.
func New(sb Sandbox) *Workspace { return &Workspace{sandbox: sb} }

// NewResolved returns a workspace that asks r for the sandbox of each run,
// for example one sandbox per user.
func NewResolved(r Resolver) *Workspace { return &Workspace{resolver: r} }

// Sharing says which runs share the workspace's sandboxes: [Shared] for
// one sandbox given to [New], what the resolver reports when it is a
// [SharingReporter], [SharingUnknown] otherwise. A nil workspace, which
// has no sandbox, reports "".
func (w *Workspace) Sharing() Sharing {
	switch {
	case w == nil:
		return ""
	case w.resolver == nil:
		return Shared
	}
	if r, ok := w.resolver.(SharingReporter); ok {
		return r.Sharing()
	}
	return SharingUnknown
}

// RemoveThread removes the sandbox that belongs to scope's thread alone,
// when the workspace's resolver is a [ThreadRemover] whose sandboxes are
// per thread, and reports whether it did. A nil workspace, one sandbox
// for all, or a resolver of another kind removes nothing.
func (w *Workspace) RemoveThread(ctx context.Context, scope Scope) (bool, error) {
	if w == nil || w.resolver == nil {
		return false, nil
	}
	r, ok := w.resolver.(ThreadRemover)
	if !ok {
		return false, nil
	}
	removed, err := r.RemoveThread(ctx, scope)
	if err != nil {
		return false, fmt.Errorf("workspace: remove the thread's sandbox: %w", err)
	}
	return removed, nil
}

// Sandbox returns the sandbox for scope. It returns an error wrapping
// [ErrNoSandbox] when the workspace is nil or has none for scope.
func (w *Workspace) Sandbox(ctx context.Context, scope Scope) (Sandbox, error) {
	if w == nil {
		return nil, ErrNoSandbox
	}
	if w.resolver == nil {
		if w.sandbox == nil {
			return nil, ErrNoSandbox
		}
		return w.sandbox, nil
	}
	sb, err := w.resolver.Resolve(ctx, scope)
	if err != nil {
		return nil, fmt.Errorf("workspace: resolve sandbox: %w", err)
	}
	if sb == nil {
		return nil, ErrNoSandbox
	}
	return sb, nil
}
