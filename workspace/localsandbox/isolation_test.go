package localsandbox_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

func newUnisolated(t *testing.T) *localsandbox.Sandbox {
	t.Helper()
	sb, err := localsandbox.New(sandboxtest.ReachableTempDir(t), localsandbox.Options{
		AllowUnisolated: true,
		BwrapPath:       "/nonexistent/bwrap",
		Logger:          slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func run(t *testing.T, sb workspace.CommandRunner, line string) *workspace.CommandResult {
	t.Helper()
	res, err := sb.RunCommand(context.Background(), workspace.Command{Line: line, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("Got(RunCommand(%q)) error %v; want none", line, err)
	}
	return res
}

func TestIsolationNoNetwork(t *testing.T) {
	sb := newIsolated(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// Each connection says who made it. Connections are taken one at a
	// time, in the order they were made.
	said := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			b, _ := io.ReadAll(c)
			c.Close()
			said <- strings.TrimSpace(string(b))
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	line := func(who string) string {
		return fmt.Sprintf(`bash -c 'echo %s > /dev/tcp/127.0.0.1/%d' && echo connected`, who, port)
	}
	next := func() string {
		t.Helper()
		select {
		case who := <-said:
			return who
		case <-time.After(10 * time.Second):
			t.Fatal("Got(connection at the port) = none after 10 s; want one")
			return ""
		}
	}

	// The same command outside the sandbox reaches the port, so a refusal
	// below is the sandbox's doing.
	if res := run(t, newUnisolated(t), line("before")); res.ExitCode != 0 {
		t.Fatalf("Got(unisolated %q) exit %d, stderr %q; want a connection", line("before"), res.ExitCode, res.Stderr)
	}
	if who := next(); who != "before" {
		t.Fatalf("Got(first connection) from %q; want before", who)
	}

	res := run(t, sb, line("isolated"))
	if res.ExitCode == 0 || strings.Contains(string(res.Stdout), "connected") {
		t.Errorf("Got(isolated %q) exit %d, stdout %q; want the connection refused", line("isolated"), res.ExitCode, res.Stdout)
	}
	// A connection made after the sandboxed command ended is taken after
	// any the command made: once it arrives, none can still come.
	if res := run(t, newUnisolated(t), line("after")); res.ExitCode != 0 {
		t.Fatalf("Got(unisolated %q) exit %d, stderr %q; want a connection", line("after"), res.ExitCode, res.Stderr)
	}
	if who := next(); who != "after" {
		t.Errorf("Got(connection after the sandboxed command) from %q; want only the unisolated one", who)
	}
}

func TestIsolationHostFilesInvisible(t *testing.T) {
	sb := newIsolated(t)
	secretDir := sandboxtest.ReachableTempDir(t)
	secret := filepath.Join(secretDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	line := "cat " + workspace.ShellQuote(secret)
	if res := run(t, newUnisolated(t), line); string(res.Stdout) != "top secret" {
		t.Fatalf("Got(unisolated %q) = %q; want the secret, or this test proves nothing", line, res.Stdout)
	}
	if res := run(t, sb, line); res.ExitCode == 0 || strings.Contains(string(res.Stdout), "top secret") {
		t.Errorf("Got(isolated %q) exit %d, stdout %q; want the file invisible", line, res.ExitCode, res.Stdout)
	}

	// Only the sandbox's view of the machine is there.
	res := run(t, sb, "ls -A /; echo ---; ls -A /etc; echo ---; ls -A /home; echo ---; ls -A /tmp")
	if res.ExitCode != 0 {
		t.Fatalf("Got(ls) exit %d, stderr %q; want 0", res.ExitCode, res.Stderr)
	}
	parts := strings.Split(string(res.Stdout), "---\n")
	for _, host := range []string{"root", "work", "var", "opt", "srv", "mnt"} {
		if hasLine(parts[0], host) {
			t.Errorf("Got(/%s) visible in the sandbox; want it hidden", host)
		}
	}
	for _, host := range []string{"shadow", "hostname", "hosts", "resolv.conf"} {
		if hasLine(parts[1], host) {
			t.Errorf("Got(/etc/%s) visible in the sandbox; want it hidden", host)
		}
	}
	if got := strings.TrimSpace(parts[2]); got != "user" {
		t.Errorf("Got(ls /home) = %q; want only %q", got, "user")
	}
	if got := strings.TrimSpace(parts[3]); got != "" {
		t.Errorf("Got(ls /tmp) = %q; want an empty /tmp of its own", got)
	}

	hidden := []string{"/etc/shadow", "/etc/ssl/private", "/root", "/work", "/sys/kernel", "/run", "/var", filepath.Dir(sb.Dir())}
	line = "for p in"
	for _, p := range hidden {
		line += " " + workspace.ShellQuote(p)
	}
	res = run(t, sb, line+`; do if [ -e "$p" ]; then echo "$p"; fi; done`)
	if got := strings.TrimSpace(string(res.Stdout)); got != "" {
		t.Errorf("Got(visible host paths) = %q; want none of %q", got, hidden)
	}

	// System directories are read-only; the sandbox's own is not.
	res = run(t, sb, "touch /usr/escaped 2>/dev/null && echo wrote-usr; touch /home/user/ok && echo wrote-home")
	if got := strings.TrimSpace(string(res.Stdout)); got != "wrote-home" {
		t.Errorf("Got(write test) = %q; want only %q", got, "wrote-home")
	}
	if _, err := os.Stat("/usr/escaped"); err == nil {
		os.Remove("/usr/escaped")
		t.Errorf("Got(/usr/escaped) on the host; want /usr read-only")
	}
	if _, err := os.Stat(filepath.Join(sb.Dir(), "ok")); err != nil {
		t.Errorf("Got(Stat(ok)) error %v; want the file written by the command in the host directory", err)
	}
}

func TestIsolationHostEnvironmentHidden(t *testing.T) {
	t.Setenv("KEEL_TEST_SECRET_KEY", "sk-should-not-leak")
	sb := newIsolatedWith(t, localsandbox.Options{Env: []string{"GREETING=hi"}})
	res := run(t, sb, "env")
	if strings.Contains(string(res.Stdout), "sk-should-not-leak") {
		t.Errorf("Got(env) holding the host's secret; want it hidden")
	}
	for _, want := range []string{"HOME=/home/user", "GREETING=hi", "PATH="} {
		if !hasLine(string(res.Stdout), want) && !strings.Contains(string(res.Stdout), want) {
			t.Errorf("Got(env) = %q; want it to hold %q", res.Stdout, want)
		}
	}
}

func hasLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if l == line {
			return true
		}
	}
	return false
}
