package localsandbox_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// requireBwrap skips a test that needs bubblewrap where it is missing,
// unless CI is set: CI installs it, so there its absence is a failure.
func requireBwrap(t testing.TB) {
	t.Helper()
	_, err := localsandbox.New(t.TempDir(), localsandbox.Options{})
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("Got(bubblewrap) unusable in CI: %v; want it installed (apt-get install bubblewrap)", err)
	}
	t.Skipf("bubblewrap cannot run here (%v); the isolated tests need it", err)
}

func newIsolated(t *testing.T) *localsandbox.Sandbox {
	t.Helper()
	requireBwrap(t)
	sb, err := localsandbox.New(t.TempDir(), localsandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sb.Isolated() {
		t.Fatalf("Got(Isolated()) = false; want true")
	}
	return sb
}

func TestConformanceIsolated(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox { return newIsolated(t) })
}

func TestConformanceUnisolated(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) workspace.Sandbox {
		sb, err := localsandbox.New(t.TempDir(), localsandbox.Options{
			AllowUnisolated: true,
			BwrapPath:       "/nonexistent/bwrap",
			Logger:          slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		if sb.Isolated() {
			t.Fatalf("Got(Isolated()) = true; want false without bwrap")
		}
		return sb
	})
}

func TestNewWithoutBwrap(t *testing.T) {
	for _, tc := range []struct {
		name, bwrap, reason string
	}{
		{"missing", "/nonexistent/bwrap", "not found"},
		{"unusable", "/bin/false", "exit status 1"},
	} {
		dir := filepath.Join(t.TempDir(), "sb")
		_, err := localsandbox.New(dir, localsandbox.Options{BwrapPath: tc.bwrap})
		var ie *localsandbox.IsolationError
		if !errors.As(err, &ie) {
			t.Fatalf("Got(New with %s bwrap) error %v; want *IsolationError", tc.name, err)
		}
		for _, want := range []string{"bwrap", "AllowUnisolated", "apt-get install bubblewrap", tc.reason} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Got(New with %s bwrap) error %q; want it to mention %q", tc.name, err, want)
			}
		}
	}
}

func TestOptionsLimits(t *testing.T) {
	requireBwrap(t)
	sb, err := localsandbox.New(t.TempDir(), localsandbox.Options{MaxOutput: 100, CommandTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
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
