package dockersandbox

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/sandboxpath"
)

// The engine resolves the paths of its archive API inside the container
// (a symbolic link to / means the container's root, never the host's),
// so no path can reach the host. The contract asks more: a path that
// leads out of the working directory, even within the container, is
// refused. So keel resolves a path one component at a time, asking the
// engine about each (HEAD .../archive, whose answer gives a link's target
// fully resolved), and refuses it as soon as a link leads out of
// HomeDir. A command that swaps a directory for a link between that walk
// and the operation can at worst lead it elsewhere in its own container.

// pathStat is the engine's X-Docker-Container-Path-Stat.
type pathStat struct {
	Name       string      `json:"name"`
	Size       int64       `json:"size"`
	Mode       fs.FileMode `json:"mode"`
	Mtime      time.Time   `json:"mtime"`
	LinkTarget string      `json:"linkTarget"`
}

// fileInfo is a [fs.FileInfo] made from what the engine says.
type fileInfo struct{ st pathStat }

func (fi fileInfo) Name() string       { return fi.st.Name }
func (fi fileInfo) Size() int64        { return fi.st.Size }
func (fi fileInfo) Mode() fs.FileMode  { return fi.st.Mode }
func (fi fileInfo) ModTime() time.Time { return fi.st.Mtime }
func (fi fileInfo) IsDir() bool        { return fi.st.Mode.IsDir() }
func (fi fileInfo) Sys() any           { return nil }

// errContainerGone says that the container is not there; a new one
// mends it.
var errContainerGone = errors.New("the sandbox's container is gone")

// errNoPath says that a path does not exist in the container.
var errNoPath = fs.ErrNotExist

// stat asks the engine about the container path abs, not following a
// link at its end. A missing path is errNoPath, a missing container
// errContainerGone.
func (s *Sandbox) stat(ctx context.Context, abs string) (*pathStat, error) {
	resp, err := s.engine.do(ctx, "HEAD", "/containers/"+s.name+"/archive", url.Values{"path": {abs}}, nil, "")
	switch {
	case isStatus(err, 404):
		// The answer to HEAD has no body to tell a missing path from a
		// missing container.
		if _, ierr := s.inspect(ctx); isStatus(ierr, 404) {
			return nil, errContainerGone
		} else if ierr != nil {
			return nil, ierr
		}
		return nil, errNoPath
	case isStatus(err, 500):
		// What the engine answers for a path through a file.
		return nil, syscall.ENOTDIR
	case err != nil:
		return nil, err
	}
	drain(resp)
	raw, err := base64.StdEncoding.DecodeString(resp.Header.Get("X-Docker-Container-Path-Stat"))
	if err != nil {
		return nil, fmt.Errorf("the engine's path stat: %w", err)
	}
	var st pathStat
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("the engine's path stat: %w", err)
	}
	return &st, nil
}

// resolved is a sandbox path found in the container.
type resolved struct {
	// abs is the container path: of what the path names (its link's
	// target when followed), or where it would be when it is missing.
	abs string
	// st describes it; nil when it is missing.
	st *pathStat
	// dir is the deepest directory on the way that exists, resolved,
	// and missing the components below it that do not, when st is nil.
	dir     string
	missing []string
}

// resolve finds the sandbox path name in the container, following links
// on the way and, when follow is set, a link at its end. A path that
// leaves HomeDir (by its text, or through a link) is an error wrapping
// [workspace.ErrPathEscapes]; a missing one is not an error (st is nil).
func (s *Sandbox) resolve(ctx context.Context, name string, follow bool) (*resolved, error) {
	if follow {
		return s.walk(ctx, name, followLinks)
	}
	return s.walk(ctx, name, keepLastLink)
}

// linkMode is what a walk does with the symbolic links on a path.
type linkMode int

const (
	followLinks  linkMode = iota // follow every link that stays inside
	keepLastLink                 // follow those on the way, not one at the end
	refuseLinks                  // refuse any link
)

// walk finds the sandbox path name in the container, component by
// component, treating links as mode says.
func (s *Sandbox) walk(ctx context.Context, name string, mode linkMode) (*resolved, error) {
	clean, err := sandboxpath.Clean(name)
	if err != nil {
		return nil, err
	}
	cur := HomeDir
	if clean == "." {
		st, err := s.stat(ctx, cur)
		if err != nil {
			return nil, err
		}
		return &resolved{abs: cur, st: st}, nil
	}
	parts := strings.Split(clean, "/")
	for i, part := range parts {
		p := cur + "/" + part
		st, err := s.stat(ctx, p)
		switch {
		case errors.Is(err, errNoPath):
			return &resolved{abs: p, dir: cur, missing: parts[i:]}, nil
		case err != nil:
			return nil, err
		}
		last := i == len(parts)-1
		if st.Mode&fs.ModeSymlink == 0 {
			if !last && !st.Mode.IsDir() {
				return nil, &fs.PathError{Op: "resolve", Path: name, Err: syscall.ENOTDIR}
			}
			cur = p
			if last {
				return &resolved{abs: cur, st: st}, nil
			}
			continue
		}
		if !inside(st.LinkTarget) {
			return nil, fmt.Errorf("%w: %q leads through a link to %s, outside %s", workspace.ErrPathEscapes, name, st.LinkTarget, HomeDir)
		}
		if mode == refuseLinks {
			return nil, fmt.Errorf("%w: %s is a symbolic link", workspace.ErrNotRegularFile, path.Join(parts[:i+1]...))
		}
		if last && mode == keepLastLink {
			return &resolved{abs: p, st: st}, nil
		}
		cur = st.LinkTarget
		if last {
			tst, err := s.stat(ctx, cur)
			switch {
			case errors.Is(err, errNoPath):
				return &resolved{abs: cur, dir: path.Dir(cur), missing: []string{path.Base(cur)}}, nil
			case err != nil:
				return nil, err
			}
			return &resolved{abs: cur, st: tst}, nil
		}
	}
	panic("unreachable")
}

// resolveNoLinks finds the sandbox path name in the container as resolve
// does, but refuses a symbolic link anywhere on it with an error wrapping
// [workspace.ErrNotRegularFile] (or [workspace.ErrPathEscapes] when the
// link leads out of the sandbox).
func (s *Sandbox) resolveNoLinks(ctx context.Context, name string) (*resolved, error) {
	return s.walk(ctx, name, refuseLinks)
}

// inside reports whether the container path p is HomeDir or below it.
func inside(p string) bool {
	return p == HomeDir || strings.HasPrefix(p, HomeDir+"/")
}
