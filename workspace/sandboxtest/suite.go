package sandboxtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
)

// Run checks that the sandboxes made by newSandbox behave as the
// [workspace.Sandbox] contract says. newSandbox is called once per check
// and must return a fresh, empty sandbox (t.TempDir() is the usual home);
// it may register cleanups on t. Checks of a capability the sandbox lacks
// are skipped, saying which.
func Run(t *testing.T, newSandbox func(t *testing.T) workspace.Sandbox) {
	t.Helper()
	t.Run("Files", func(t *testing.T) { testFiles(t, newSandbox) })
	t.Run("Commands", func(t *testing.T) { testCommands(t, newSandbox) })
	t.Run("Uploads", func(t *testing.T) { testUploads(t, newSandbox) })
	t.Run("Escapes", func(t *testing.T) { testEscapes(t, newSandbox) })
	t.Run("RemoveAll", func(t *testing.T) { testRemoveAll(t, newSandbox) })
	t.Run("SpecialFiles", func(t *testing.T) { testSpecialFiles(t, newSandbox) })
}

// as returns sb as a C, one of the workspace's capability interfaces,
// and skips the test, saying which, when sb lacks it.
func as[C any](t *testing.T, sb workspace.Sandbox) C {
	t.Helper()
	c, ok := sb.(C)
	if !ok {
		t.Skipf("sandbox %T has no %s capability", sb, reflect.TypeFor[C]().Name())
	}
	return c
}

// mustRun runs line and fails the test unless it ran and exited 0.
func mustRun(t *testing.T, r workspace.CommandRunner, line string) *workspace.CommandResult {
	t.Helper()
	res, err := r.RunCommand(context.Background(), workspace.Command{Line: line})
	if err != nil {
		t.Fatalf("Got(RunCommand(%q)) error %v; want none", line, err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("Got(RunCommand(%q)) exit code %d, stderr %q; want 0", line, res.ExitCode, res.Stderr)
	}
	return res
}

// digestIn returns the SHA-256 of the file at path in sb, read through
// its FileSystem, else through a command.
func digestIn(t *testing.T, sb workspace.Sandbox, path string) string {
	t.Helper()
	if fsys, ok := sb.(workspace.FileSystem); ok {
		data, err := fsys.ReadFile(context.Background(), path)
		if err != nil {
			t.Fatalf("Got(ReadFile(%q)) error %v; want none", path, err)
		}
		return sha256Hex(data)
	}
	res := mustRun(t, as[workspace.CommandRunner](t, sb), "sha256sum < "+workspace.ShellQuote(path))
	return strings.Fields(string(res.Stdout))[0]
}

// listIn returns the names in the directory at path in sb, sorted.
func listIn(t *testing.T, sb workspace.Sandbox, path string) []string {
	t.Helper()
	if fsys, ok := sb.(workspace.FileSystem); ok {
		entries, err := fsys.ReadDir(context.Background(), path)
		if err != nil {
			t.Fatalf("Got(ReadDir(%q)) error %v; want none", path, err)
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		return names
	}
	res := mustRun(t, as[workspace.CommandRunner](t, sb), "LC_ALL=C ls -A "+workspace.ShellQuote(path))
	return strings.Fields(string(res.Stdout))
}

// readIn returns the content of a small file in sb, or nil when it does
// not exist.
func readIn(t *testing.T, sb workspace.Sandbox, path string) []byte {
	t.Helper()
	if fsys, ok := sb.(workspace.FileSystem); ok {
		data, err := fsys.ReadFile(context.Background(), path)
		if err != nil {
			return nil
		}
		return data
	}
	q := workspace.ShellQuote(path)
	res := mustRun(t, as[workspace.CommandRunner](t, sb), "if [ -f "+q+" ]; then cat "+q+"; fi")
	return res.Stdout
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// pattern returns n bytes holding every byte value, NUL and newline
// included, in an order no simple encoding bug preserves.
func pattern(n int) []byte {
	out := make([]byte, n)
	x := uint32(2463534242)
	for i := range out {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		out[i] = byte(x) ^ byte(i)
	}
	return out
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("Got no %s within %v; want it", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func wantEscape(t *testing.T, op, path string, err error) {
	t.Helper()
	if !errors.Is(err, workspace.ErrPathEscapes) {
		t.Errorf("Got(%s(%q)) error %v; want one wrapping workspace.ErrPathEscapes", op, path, err)
	}
}

func equalBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("Got(%s) = %d bytes (sha256 %s); want %d bytes (sha256 %s)",
			what, len(got), sha256Hex(got)[:12], len(want), sha256Hex(want)[:12])
	}
}

// ReachableTempDir returns a new temporary directory, as t.TempDir does,
// that any user may pass through (but not list) on the way to what is
// inside. A local sandbox run by root runs its commands as a dedicated
// user, who must be able to reach the sandbox's directory; the
// directories the testing package makes are open to their owner only.
func ReachableTempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	top := filepath.Clean(os.TempDir())
	for d := dir; d != top && d != filepath.Dir(d); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
