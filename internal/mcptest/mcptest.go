// Package mcptest runs the MCP project's reference servers and inspector,
// installed from test/mcp's lockfile, for keel's MCP tests. Without node
// and npm it skips the test, or fails it when the CI environment variable
// is set (scripts/test.sh installs them there).
package mcptest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SkipReason is why a test is skipped when node or npm is missing.
const SkipReason = "the MCP reference servers need node and npm (Debian: apt-get install nodejs npm)"

// Command is a program and its arguments.
type Command struct {
	Path string
	Args []string
}

var (
	installMu  sync.Mutex
	installDir string
)

// Dir returns test/mcp with its packages installed from the lockfile
// (npm ci, once, under a file lock so that test binaries running at once
// do not install over each other), and the path of node.
func Dir(t testing.TB) (dir, node string) {
	t.Helper()
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("mcptest: node (%v), npm (%v): CI is set, so this fails instead of skipping", nodeErr, npmErr)
		}
		t.Skip(SkipReason)
	}
	installMu.Lock()
	defer installMu.Unlock()
	if installDir != "" {
		return installDir, node
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(root, "test", "mcp")
	marker := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "package.json")
	if _, err := os.Stat(marker); err != nil {
		lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close()
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatal(err)
		}
		defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		if _, err := os.Stat(marker); err != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			args := []string{"ci", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"}
			if out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput(); err != nil {
				t.Fatalf("mcptest: npm %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
	installDir = dir
	return dir, node
}

// moduleRoot is the directory of keel's go.mod, above the test's.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("mcptest: no go.mod above the working directory")
		}
		dir = parent
	}
}

func script(dir, pkg string) string {
	return filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
}

// Everything is @modelcontextprotocol/server-everything over stdio.
func Everything(t testing.TB) Command {
	dir, node := Dir(t)
	return Command{Path: node, Args: []string{script(dir, "server-everything"), "stdio"}}
}

// Filesystem is @modelcontextprotocol/server-filesystem over stdio,
// allowed into roots.
func Filesystem(t testing.TB, roots ...string) Command {
	dir, node := Dir(t)
	return Command{Path: node, Args: append([]string{script(dir, "server-filesystem")}, roots...)}
}

// Inspector is the inspector's command line: @modelcontextprotocol/inspector --cli.
func Inspector(t testing.TB) Command {
	dir, node := Dir(t)
	return Command{Path: node, Args: []string{filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "cli", "build", "cli.js")}}
}

// HTTPServer is a server-everything serving streamable HTTP.
type HTTPServer struct {
	// URL is its MCP endpoint.
	URL  string
	node string
	args []string
	port int

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Kill kills the server at once, as a crash would, and waits for it.
func (s *HTTPServer) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// Restart starts the server again on the same port, after Kill.
func (s *HTTPServer) Restart(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cmd = s.start(t)
}

// EverythingHTTP starts server-everything's streamable-HTTP transport on a
// free loopback port and stops it when the test ends.
func EverythingHTTP(t testing.TB) *HTTPServer {
	t.Helper()
	cmd := Everything(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &HTTPServer{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), node: cmd.Path, args: []string{cmd.Args[0], "streamableHttp"}, port: port}
	s.cmd = s.start(t)
	t.Cleanup(s.Kill)
	return s
}

// start runs the server and waits until it says it listens.
func (s *HTTPServer) start(t testing.TB) *exec.Cmd {
	t.Helper()
	c := exec.Command(s.node, s.args...)
	c.Env = append(os.Environ(), "PORT="+strconv.Itoa(s.port))
	stderr, err := c.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "listening on port") {
				said = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		_ = c.Process.Kill()
		_ = c.Wait()
		t.Fatalf("mcptest: server-everything streamableHttp did not say it listens within 30s")
	}
	return c
}
