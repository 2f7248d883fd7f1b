package dockersandbox_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/keel-go/keel/internal/dockertest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// TestResolverKeys: each mode names its sandboxes as the local sandbox
// names its directories, and a scope without the ID the mode needs has
// no sandbox.
func TestResolverKeys(t *testing.T) {
	r, _ := twoServers(t, dockersandbox.Options{})
	key, err := r.Key(workspace.Scope{ResourceID: "a b", ThreadID: "t"})
	if want := "resource-" + localsandbox.DirName("a b"); err != nil || key != want {
		t.Errorf("Got(Key) = %q, %v; want %q", key, err, want)
	}
	if _, err := r.Resolve(context.Background(), workspace.Scope{ThreadID: "t"}); !errors.Is(err, workspace.ErrNoSandbox) {
		t.Errorf("Got(Resolve without a resource) error %v; want workspace.ErrNoSandbox", err)
	}
	sb := resolve(t, r, workspace.Scope{ResourceID: "a b"})
	if !strings.HasPrefix(sb.Container(), sb.Volume()+"-") || !strings.HasSuffix(sb.Volume(), key) {
		t.Errorf("Got(container %q, volume %q); want PREFIX-%s and PREFIX-%s-DIGEST", sb.Container(), sb.Volume(), key, key)
	}
}

// TestRemove: removing a scope's sandbox removes its container and its
// files; the next use starts empty.
func TestRemove(t *testing.T) {
	ctx := context.Background()
	r, _ := twoServers(t, dockersandbox.Options{})
	scope := workspace.Scope{ResourceID: "frank"}
	key, _ := r.Key(scope)
	if err := resolve(t, r, scope).WriteFile(ctx, "f.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, scope); err != nil {
		t.Fatalf("Got(Remove) error %v; want none", err)
	}
	if ids, _ := dockersandbox.Containers(ctx, r, key); len(ids) != 0 {
		t.Errorf("Got(containers after Remove) = %v; want none", ids)
	}
	if _, err := resolve(t, r, scope).Stat(ctx, "f.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(Stat(f.txt) after Remove) error %v; want fs.ErrNotExist", err)
	}
}

// TestReap: a container made and never started (its server died in
// between) is removed by any server's reaper once old enough; a running
// one is left alone.
func TestReap(t *testing.T) {
	ctx := context.Background()
	r, other := twoServers(t, dockersandbox.Options{})
	running := resolve(t, r, workspace.Scope{ResourceID: "running"})
	mustRun(t, running, "true")
	stuck := resolve(t, r, workspace.Scope{ResourceID: "stuck"})
	if err := dockersandbox.CreateOnly(ctx, stuck); err != nil {
		t.Fatal(err)
	}
	if n, err := other.Reap(ctx); err != nil || n != 0 {
		t.Errorf("Got(Reap of a fresh container) = %d, %v; want 0: it may be starting", n, err)
	}
	dockersandbox.SetReapAge(t, 0)
	if n, err := other.Reap(ctx); err != nil || n != 1 {
		t.Errorf("Got(Reap) = %d, %v; want 1", n, err)
	}
	for _, c := range []struct {
		sb   *dockersandbox.Sandbox
		want int
	}{{stuck, 0}, {running, 1}} {
		if ids, _ := dockersandbox.Containers(ctx, r, c.sb.Key()); len(ids) != c.want {
			t.Errorf("Got(%d containers of %s after Reap); want %d", len(ids), c.sb.Key(), c.want)
		}
	}
}

// TestRemoveThread: through a workspace, a per-thread resolver removes a
// deleted thread's container and volume, from either server, and keeps
// the other threads'; a per-resource one removes nothing (the thread's
// uploads are then removed from the resource's sandbox).
func TestRemoveThread(t *testing.T) {
	ctx := context.Background()
	e := dockertest.Engine(t)
	opts := dockersandbox.Options{Image: dockertest.Image, Prefix: dockertest.Prefix(t, e)}
	var ws [2]*workspace.Workspace
	var rs [2]*dockersandbox.Resolver
	for i := range rs {
		r, err := dockersandbox.NewResolver(ctx, e, localsandbox.PerThread, opts)
		if err != nil {
			t.Fatal(err)
		}
		rs[i], ws[i] = r, workspace.NewResolved(r)
	}
	if got := ws[0].Sharing(); got != workspace.PerThread {
		t.Errorf("Got(Sharing) = %q; want %q", got, workspace.PerThread)
	}
	for _, th := range []string{"t1", "t2"} {
		mustRun(t, resolve(t, rs[0], workspace.Scope{ThreadID: th}), "echo "+th+" > notes.txt")
	}
	removed, err := ws[1].RemoveThread(ctx, workspace.Scope{ThreadID: "t1", ResourceID: "alice"})
	if err != nil || !removed {
		t.Fatalf("Got(RemoveThread(t1)) = %v, %v; want true, nil", removed, err)
	}
	key, _ := rs[0].Key(workspace.Scope{ThreadID: "t1"})
	if ids, _ := dockersandbox.Containers(ctx, rs[0], key); len(ids) != 0 {
		t.Errorf("Got(containers of t1 after RemoveThread) = %v; want none", ids)
	}
	if _, err := resolve(t, rs[0], workspace.Scope{ThreadID: "t1"}).Stat(ctx, "notes.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(Stat(notes.txt) in t1's sandbox after RemoveThread) error %v; want fs.ErrNotExist, its volume gone", err)
	}
	if got, err := resolve(t, rs[1], workspace.Scope{ThreadID: "t2"}).ReadFile(ctx, "notes.txt"); err != nil || string(got) != "t2\n" {
		t.Errorf("Got(t2's notes) = %q, %v; want them kept", got, err)
	}
	// A thread that never had a sandbox is removed at no cost.
	if removed, err := ws[0].RemoveThread(ctx, workspace.Scope{ThreadID: "never"}); err != nil || !removed {
		t.Errorf("Got(RemoveThread(never)) = %v, %v; want true, nil", removed, err)
	}
	perResource, _ := twoServers(t, dockersandbox.Options{})
	if removed, err := workspace.NewResolved(perResource).RemoveThread(ctx, workspace.Scope{ThreadID: "t1", ResourceID: "alice"}); err != nil || removed {
		t.Errorf("Got(RemoveThread per resource) = %v, %v; want false, nil", removed, err)
	}
}
