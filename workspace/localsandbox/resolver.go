package localsandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/keel-go/keel/workspace"
)

// Mode says which runs share a sandbox made by [NewResolver].
type Mode int

// The modes of a resolver. The zero value is PerResource.
const (
	// PerResource gives each resource (user) its own sandbox: different
	// users never share files. A run without a resource ID has none.
	PerResource Mode = iota
	// PerThread gives each thread its own sandbox. A run without a thread
	// ID has none.
	PerThread
	// Shared gives every run the same sandbox, as the reference framework
	// does; uploads are kept apart by thread directory but not protected.
	Shared
)

// String returns "per-resource", "per-thread" or "shared".
func (m Mode) String() string {
	switch m {
	case PerResource:
		return "per-resource"
	case PerThread:
		return "per-thread"
	case Shared:
		return "shared"
	default:
		return fmt.Sprintf("Mode(%d)", int(m))
	}
}

// Sharing returns the [workspace.Sharing] of m.
func (m Mode) Sharing() workspace.Sharing {
	switch m {
	case PerResource:
		return workspace.PerResource
	case PerThread:
		return workspace.PerThread
	case Shared:
		return workspace.Shared
	default:
		return workspace.SharingUnknown
	}
}

// NewResolver returns a resolver of sandboxes kept under root, one
// directory per resource, per thread, or one for all, depending on mode;
// opts apply to each sandbox. Directory names are derived from the IDs so
// that no two IDs share a directory and no ID leaves root. A scope missing
// the ID its mode needs resolves to an error wrapping
// [workspace.ErrNoSandbox]. The resolver is safe for concurrent use; it
// keeps no state, so any number of users costs nothing until they run.
func NewResolver(root string, mode Mode, opts Options) workspace.Resolver {
	return &resolver{root: root, mode: mode, opts: opts}
}

type resolver struct {
	root string
	mode Mode
	opts Options
}

// Sharing implements [workspace.SharingReporter]: the resolver's mode.
func (r *resolver) Sharing() workspace.Sharing { return r.mode.Sharing() }

func (r *resolver) Resolve(ctx context.Context, scope workspace.Scope) (workspace.Sandbox, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("localsandbox: resolve: %w", err)
	}
	var dir string
	switch r.mode {
	case PerResource:
		if scope.ResourceID == "" {
			return nil, fmt.Errorf("localsandbox: resolve: per-resource sandbox needs a resource ID: %w", workspace.ErrNoSandbox)
		}
		dir = "resource-" + DirName(scope.ResourceID)
	case PerThread:
		if scope.ThreadID == "" {
			return nil, fmt.Errorf("localsandbox: resolve: per-thread sandbox needs a thread ID: %w", workspace.ErrNoSandbox)
		}
		dir = "thread-" + DirName(scope.ThreadID)
	case Shared:
		dir = "shared"
	default:
		return nil, fmt.Errorf("localsandbox: resolve: unknown mode %v", r.mode)
	}
	sb, err := New(filepath.Join(r.root, dir), r.opts)
	if err != nil {
		return nil, fmt.Errorf("localsandbox: resolve: %w", err)
	}
	return sb, nil
}

// RemoveThread implements [workspace.ThreadRemover]: in PerThread mode it
// removes the thread's sandbox directory with everything in it (and the
// image of its own file system, unmounted first, see
// [Options].OwnFilesystem). A command still running in it keeps what it
// holds open until it ends. Other modes remove nothing.
func (r *resolver) RemoveThread(ctx context.Context, scope workspace.Scope) (bool, error) {
	if r.mode != PerThread {
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("localsandbox: remove thread sandbox: %w", err)
	}
	if scope.ThreadID == "" {
		return false, fmt.Errorf("localsandbox: remove thread sandbox: per-thread sandbox needs a thread ID: %w", workspace.ErrNoSandbox)
	}
	dir := filepath.Join(r.root, "thread-"+DirName(scope.ThreadID))
	if err := Unmount(dir); err != nil {
		return false, fmt.Errorf("localsandbox: remove thread sandbox: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, fmt.Errorf("localsandbox: remove thread sandbox: %w", err)
	}
	if err := os.Remove(dir + imageSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("localsandbox: remove thread sandbox: %w", err)
	}
	return true, nil
}

// DirName turns an ID into a directory name that is safe anywhere and
// unique to the ID: up to 40 characters of the ID with everything outside
// [A-Za-z0-9_-] replaced by '_', for people reading the disk, then '-' and
// 32 hex digits of the ID's SHA-256, which keeps IDs that read alike (such
// as "a b" and "a_b") apart.
func DirName(id string) string {
	var b strings.Builder
	for _, r := range id {
		if b.Len() >= 40 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(id))
	return b.String() + "-" + hex.EncodeToString(sum[:16])
}
