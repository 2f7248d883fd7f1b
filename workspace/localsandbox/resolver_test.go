package localsandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

func resolve(t *testing.T, r workspace.Resolver, scope workspace.Scope) *localsandbox.Sandbox {
	t.Helper()
	sb, err := r.Resolve(context.Background(), scope)
	if err != nil {
		t.Fatalf("Got(Resolve(%+v)) error %v; want none", scope, err)
	}
	return sb.(*localsandbox.Sandbox)
}

func TestPerResourceKeepsUsersApart(t *testing.T) {
	requireBwrap(t)
	root := sandboxtest.ReachableTempDir(t)
	r := localsandbox.NewResolver(root, localsandbox.PerResource, localsandbox.Options{})
	a := resolve(t, r, workspace.Scope{ResourceID: "alice", ThreadID: "t1"})
	b := resolve(t, r, workspace.Scope{ResourceID: "bob", ThreadID: "t1"})
	again := resolve(t, r, workspace.Scope{ResourceID: "alice", ThreadID: "t2"})
	if a.Dir() == b.Dir() || a.Dir() != again.Dir() {
		t.Fatalf("Got(dirs) alice %q, bob %q, alice again %q; want alice's two alike and bob's apart", a.Dir(), b.Dir(), again.Dir())
	}

	u, err := workspace.Upload(context.Background(), a, "t1", "alice", workspace.File{
		Name: "private.csv", MediaType: "text/csv", Data: []byte("name,salary\nalice,1\n"),
	})
	if err != nil {
		t.Fatal(err)
	}
	line := "cat " + workspace.ShellQuote(u.Path)
	if res := run(t, a, line); string(res.Stdout) != "name,salary\nalice,1\n" {
		t.Fatalf("Got(alice: %s) = %q, stderr %q; want her file", line, res.Stdout, res.Stderr)
	}
	// Bob's command sees the same path, the same thread ID, and nothing.
	if res := run(t, b, line); res.ExitCode == 0 {
		t.Errorf("Got(bob: %s) exit 0, stdout %q; want no such file", line, res.Stdout)
	}
	res := run(t, b, "find /home /tmp -type f; grep -rl salary /home /tmp 2>/dev/null; true")
	if strings.Contains(string(res.Stdout), "uploads") {
		t.Errorf("Got(bob's search) = %q; want none of alice's uploads", res.Stdout)
	}
}

func TestResolverModes(t *testing.T) {
	requireBwrap(t)
	root := sandboxtest.ReachableTempDir(t)
	scopeA := workspace.Scope{ResourceID: "user-1", ThreadID: "thread-1"}
	scopeB := workspace.Scope{ResourceID: "user-1", ThreadID: "thread-2"}
	for _, tc := range []struct {
		mode     localsandbox.Mode
		sameDirs bool
	}{
		{localsandbox.PerResource, true},
		{localsandbox.PerThread, false},
		{localsandbox.Shared, true},
	} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			r := localsandbox.NewResolver(filepath.Join(root, tc.mode.String()), tc.mode, localsandbox.Options{})
			a, b := resolve(t, r, scopeA), resolve(t, r, scopeB)
			if got := a.Dir() == b.Dir(); got != tc.sameDirs {
				t.Errorf("Got(same dir for two threads of one user) = %v; want %v", got, tc.sameDirs)
			}
			if !strings.HasPrefix(a.Dir(), root+string(filepath.Separator)) {
				t.Errorf("Got(Dir()) = %q; want it under %q", a.Dir(), root)
			}
		})
	}
}

func TestResolverNeedsItsID(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		mode  localsandbox.Mode
		scope workspace.Scope
	}{
		{localsandbox.PerResource, workspace.Scope{ThreadID: "t1"}},
		{localsandbox.PerThread, workspace.Scope{ResourceID: "u1"}},
	} {
		r := localsandbox.NewResolver(root, tc.mode, localsandbox.Options{})
		_, err := r.Resolve(context.Background(), tc.scope)
		if !errors.Is(err, workspace.ErrNoSandbox) {
			t.Errorf("Got(%v Resolve(%+v)) error %v; want workspace.ErrNoSandbox", tc.mode, tc.scope, err)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("Got(%d directories made for refused scopes); want 0", len(entries))
	}
}

func TestDirName(t *testing.T) {
	ids := []string{
		"alice", "a b", "a_b", "a/b", "../..", "..", ".", "", "t1; rm -rf /", "Ünïcödé",
		strings.Repeat("x", 300), strings.Repeat("x", 301), "A", "a",
	}
	seen := map[string]string{}
	for _, id := range ids {
		name := localsandbox.DirName(id)
		if prev, dup := seen[name]; dup {
			t.Errorf("Got(DirName(%q)) = DirName(%q) = %q; want distinct names", id, prev, name)
		}
		seen[name] = id
		if name == "" || strings.ContainsAny(name, "/.\\ ;") || len(name) > 80 {
			t.Errorf("Got(DirName(%q)) = %q; want a short name of [A-Za-z0-9_-]", id, name)
		}
		if localsandbox.DirName(id) != name {
			t.Errorf("Got(DirName(%q)) unstable; want the same name every time", id)
		}
	}
}
