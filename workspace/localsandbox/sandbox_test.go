package localsandbox_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// requireBwrap skips a test that needs bubblewrap where it cannot isolate
// commands, unless CI is set: CI installs it, so there its absence is a
// failure.
func requireBwrap(t testing.TB) {
	t.Helper()
	st := localsandbox.Check(sandboxtest.ReachableTempDir(t), localsandbox.Options{})
	if st.Isolated {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("Got(bubblewrap) unusable in CI: %v; want it installed (apt-get install bubblewrap)", st.Off)
	}
	t.Skipf("bubblewrap cannot isolate commands here (%v); the isolated tests need it", st.Off)
}

func newIsolatedWith(t *testing.T, opts localsandbox.Options) *localsandbox.Sandbox {
	t.Helper()
	requireBwrap(t)
	sb, err := localsandbox.New(sandboxtest.ReachableTempDir(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !sb.Isolated() {
		t.Fatalf("Got(Isolated()) = false (%v); want true", sb.Status().Off)
	}
	return sb
}

func newIsolated(t *testing.T) *localsandbox.Sandbox {
	return newIsolatedWith(t, localsandbox.Options{})
}

func TestConformanceIsolated(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox { return newIsolated(t) })
}

func TestConformanceUnisolated(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox {
		sb, err := localsandbox.New(sandboxtest.ReachableTempDir(t), localsandbox.Options{
			AllowUnisolated: true,
			BwrapPath:       "/nonexistent/bwrap",
			Logger:          slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		if sb.Isolated() || sb.Status().Off != nil {
			t.Fatalf("Got(Isolated, Off) = %v, %v; want commands unisolated without bwrap", sb.Isolated(), sb.Status().Off)
		}
		return sb
	})
}

// filesOnly is a sandbox seen without its commands.
type filesOnly struct {
	workspace.FileSystem
	workspace.TreeRemover
}

func (f filesOnly) ID() string { return f.FileSystem.ID() }

// TestWithoutBwrap: with no bwrap in PATH a sandbox keeps every file
// operation and refuses commands with an error that says what to install,
// and names no Go option.
func TestWithoutBwrap(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	newOff := func(t *testing.T) *localsandbox.Sandbox {
		sb, err := localsandbox.New(sandboxtest.ReachableTempDir(t), localsandbox.Options{})
		if err != nil {
			t.Fatalf("Got(New without bwrap) error %v; want a sandbox for files", err)
		}
		return sb
	}
	sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox {
		sb := newOff(t)
		return filesOnly{sb, sb}
	})

	sb := newOff(t)
	u, err := workspace.Upload(context.Background(), sb, "t1", "", workspace.File{Name: "a.csv", Data: []byte("a,b\n")})
	if err != nil || !u.Written || u.Path != localsandbox.HomeDir+"/"+u.RelPath {
		t.Errorf("Got(Upload without bwrap) = %+v, %v; want it written under %s", u, err, localsandbox.HomeDir)
	}
	res, err := sb.RunCommand(context.Background(), workspace.Command{Line: "touch ran"})
	var ie *localsandbox.IsolationError
	if res != nil || !errors.As(err, &ie) {
		t.Fatalf("Got(RunCommand without bwrap) = %v, %v; want an *IsolationError and nothing run", res, err)
	}
	for _, want := range []string{"sandbox commands are off", "bubblewrap is not available", "apt-get install bubblewrap"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Got(error) %q; want it to say %q", err, want)
		}
	}
	for _, banned := range []string{"Options", "AllowUnisolated", "allowUnisolated"} {
		if strings.Contains(err.Error(), banned) {
			t.Errorf("Got(error) %q; want no Go option or setting named in it", err)
		}
	}
	if _, err := os.Stat(filepath.Join(sb.Dir(), "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Got(Stat(ran)) error %v; want the command never run", err)
	}
	if st := sb.Status(); st.Isolated || st.Off == nil || st.Warning() == "" || sb.WorkDir() != localsandbox.HomeDir {
		t.Errorf("Got(status %+v, warning %q, WorkDir %q); want commands off, said loudly, paths under %s",
			st, st.Warning(), sb.WorkDir(), localsandbox.HomeDir)
	}
}

func TestUnusableBwrap(t *testing.T) {
	sb, err := localsandbox.New(sandboxtest.ReachableTempDir(t), localsandbox.Options{BwrapPath: "/bin/false"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sb.RunCommand(context.Background(), workspace.Command{Line: "true"})
	var ie *localsandbox.IsolationError
	if !errors.As(err, &ie) || ie.Bwrap != "/bin/false" || !strings.Contains(err.Error(), "cannot isolate commands here") ||
		!strings.Contains(err.Error(), "user namespaces") {
		t.Errorf("Got(RunCommand with a bwrap that fails) error %v; want an *IsolationError saying why and what to check", err)
	}
}

func TestOptionsLimits(t *testing.T) {
	sb := newIsolatedWith(t, localsandbox.Options{MaxOutput: 100, CommandTimeout: 300 * time.Millisecond})
	ctx := context.Background()
	// Its own limit keeps a loaded machine's slow sandbox start from
	// hitting the 300ms default, which the sleep below is for.
	res, err := sb.RunCommand(ctx, workspace.Command{Line: "head -c 1000 /dev/zero; head -c 50 /dev/zero >&2", Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stdout) != 100 || len(res.Stderr) != 50 || !res.Truncated {
		t.Errorf("Got(%d stdout, %d stderr bytes, Truncated %v); want 100, 50, true", len(res.Stdout), len(res.Stderr), res.Truncated)
	}
	start := time.Now()
	_, err = sb.RunCommand(ctx, workspace.Command{Line: "sleep 5"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 3*time.Second {
		t.Errorf("Got(sleep 5 with a 300ms default limit) error %v after %v; want context.DeadlineExceeded soon", err, time.Since(start))
	}
	// A command's own limit wins over the default.
	res, err = sb.RunCommand(ctx, workspace.Command{Line: "sleep 0.5; echo done", Timeout: 5 * time.Second})
	if err != nil || string(res.Stdout) != "done\n" {
		t.Errorf("Got(sleep 0.5 with its own 5s limit) = %v, %v; want done", res, err)
	}
}

// TestDedicatedUser: run by root, commands run as the dedicated user,
// who owns the sandbox and the files keel writes into it, so commands
// can change them.
func TestDedicatedUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands sandboxes to a dedicated user; CI runs as root")
	}
	const uid, gid = 2100000123, 2100000456
	sb := newIsolatedWith(t, localsandbox.Options{UID: uid, GID: gid})
	ctx := context.Background()
	if err := sb.WriteFile(ctx, "uploads/t1/a.txt", []byte("from keel")); err != nil {
		t.Fatal(err)
	}
	res := run(t, sb, "id -u; printf ' and a command' >> uploads/t1/a.txt && mkdir -p made/by && touch made/by/command && echo ok")
	if got := string(res.Stdout); got != "1000\nok\n" {
		t.Errorf("Got(id -u; append) = %q, stderr %q; want uid 1000 inside, the file writable", got, res.Stderr)
	}
	for _, p := range []string{".", "uploads", "uploads/t1", "uploads/t1/a.txt", "made/by/command"} {
		fi, err := os.Lstat(filepath.Join(sb.Dir(), p))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != uid || st.Gid != gid {
			t.Errorf("Got(owner of %s) = %d:%d; want %d:%d", p, st.Uid, st.Gid, uid, gid)
		}
	}
	if got, _ := sb.ReadFile(ctx, "uploads/t1/a.txt"); string(got) != "from keel and a command" {
		t.Errorf("Got(a.txt) = %q; want keel's text and the command's", got)
	}
	if st := sb.Status(); !st.Dedicated || st.UID != uid || st.GID != gid {
		t.Errorf("Got(status) = %+v; want the dedicated %d:%d", st, uid, gid)
	}
}

// closedDir returns a directory of root's that no other user may enter,
// as /root is: keel run as root from /root/app keeps its sandboxes there.
func closedDir(t testing.TB) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("only root hands sandboxes to a dedicated user, who may not reach them; CI runs as root")
	}
	requireBwrap(t)
	closed := filepath.Join(t.TempDir(), "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	return closed
}

// TestDedicatedUserBelowClosedDir: a sandbox under a directory the
// dedicated user cannot enter runs its commands all the same, isolated,
// keel mounting it for bubblewrap; the host's mounts do not change.
func TestDedicatedUserBelowClosedDir(t *testing.T) {
	closed := closedDir(t)
	mountsBefore := hostMounts(t, closed)
	sb, err := localsandbox.New(filepath.Join(closed, "sb"), localsandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := sb.Status()
	if !sb.Isolated() || st.Off != nil || !st.Mounted {
		t.Fatalf("Got(status) = %+v; want commands isolated, the sandbox mounted by keel", st)
	}
	ctx := context.Background()
	if err := sb.WriteFile(ctx, "in.txt", []byte("from keel")); err != nil {
		t.Fatal(err)
	}
	res := run(t, sb, "id -u; pwd; cat in.txt; echo from-command > out.txt; ls -A /tmp | wc -l")
	if got := string(res.Stdout); got != "1000\n/home/user\nfrom keel0\n" {
		t.Errorf("Got(stdout) = %q, stderr %q; want uid 1000 in /home/user reading keel's file, an empty /tmp", got, res.Stderr)
	}
	fi, err := os.Stat(filepath.Join(closed, "sb", "out.txt"))
	if err != nil {
		t.Fatalf("Got(stat of the command's file on the host) error %v; want it written in the sandbox", err)
	}
	if uid := fi.Sys().(*syscall.Stat_t).Uid; uid != localsandbox.DefaultUID {
		t.Errorf("Got(owner of the command's file) = %d; want the dedicated user %d", uid, localsandbox.DefaultUID)
	}
	// A thread of keel's that ends kills the sandboxes it started (bwrap's
	// --die-with-parent), which a mount made from short-lived threads did
	// now and then: many commands in a row show it.
	for i := 0; i < 100; i++ {
		if res := run(t, sb, "true"); res.ExitCode != 0 {
			t.Fatalf("Got(command %d) exit %d, stderr %q; want 0: no command killed", i, res.ExitCode, res.Stderr)
		}
	}
	if after := hostMounts(t, closed); after != mountsBefore {
		t.Errorf("Got(host mounts after the command) = %d; want %d, unchanged", after, mountsBefore)
	}
	check := localsandbox.Check(closed, localsandbox.Options{})
	if check.Warning() != "" || !check.Mounted || !strings.Contains(check.String(), "mounted for it by keel") {
		t.Errorf("Got(Check) = %q, warning %q; want isolated commands, the sandboxes mounted by keel", check.String(), check.Warning())
	}
}

// hostMounts counts the mounts of keel's own mount namespace.
//
// Only the mounts keel could leave count: those on the mount point
// keel binds sandboxes onto (/tmp), and binds of dir. Other software
// mounts beside the tests (a Docker engine the Docker sandbox's tests
// run starts and stops containers at the same time).
func hostMounts(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		// ID parent major:minor root mount-point options ...
		if f := strings.Fields(line); len(f) > 4 && (f[4] == "/tmp" || strings.HasPrefix(f[3], dir)) {
			n++
		}
	}
	return n
}

// TestDedicatedUserCannotReach: where keel cannot mount a sandbox the
// dedicated user cannot reach for bubblewrap, or commands run without it,
// the sandbox keeps its files and its commands say what to do.
func TestDedicatedUserCannotReach(t *testing.T) {
	closed := closedDir(t)
	// A user of its own, whose mount probe no other test has cached.
	const uid = 2100000123
	restore := localsandbox.SetMountPoint("/nonexistent-mount-point")
	defer restore()
	unmountable, err := localsandbox.New(filepath.Join(closed, "sb"), localsandbox.Options{UID: uid, GID: uid})
	if err != nil {
		t.Fatal(err)
	}
	unisolated, err := localsandbox.New(filepath.Join(closed, "sb2"), localsandbox.Options{
		AllowUnisolated: true, BwrapPath: "/nonexistent/bwrap", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sb   *localsandbox.Sandbox
		uid  int
		want string
	}{
		{"mount fails", unmountable, uid, "keel cannot mount the sandbox for it"},
		{"unisolated", unisolated, localsandbox.DefaultUID, "cannot enter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.sb.WriteFile(context.Background(), "a.txt", []byte("kept")); err != nil {
				t.Errorf("Got(WriteFile) error %v; want files to work", err)
			}
			_, err := tc.sb.RunCommand(context.Background(), workspace.Command{Line: "true"})
			var ie *localsandbox.IsolationError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "cannot enter "+closed) || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), fmt.Sprintf("setfacl -m u:%d:x %s", tc.uid, closed)) {
				t.Errorf("Got(RunCommand) error %v; want one naming %s, saying %q, and how to let the user through", err, closed, tc.want)
			}
		})
	}
	if w := localsandbox.Check(closed, localsandbox.Options{UID: uid, GID: uid}).Warning(); !strings.Contains(w, "cannot enter "+closed) {
		t.Errorf("Got(Check warning) %q; want it to say the sandbox root cannot be reached", w)
	}
}

func TestInvalidIDs(t *testing.T) {
	for _, o := range []localsandbox.Options{{UID: -1}, {GID: -5}, {UID: 1 << 32}} {
		if _, err := localsandbox.New(t.TempDir(), o); err == nil || !strings.Contains(err.Error(), "unprivileged id") {
			t.Errorf("Got(New with %+v) error %v; want the id refused", o, err)
		}
	}
}

// TestConformanceCommandOnly runs the suite through commands alone, as a
// sandbox without a file capability would be used: uploads go as base64
// chunks and trees are removed with rm -rf.
func TestConformanceCommandOnly(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox { return sandboxtest.CommandOnly(newIsolated(t)) })
}
