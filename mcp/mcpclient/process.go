package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Times of a stdio server's stop: how long it has to exit once its input
// is closed, as the protocol asks servers to, and then once told to
// terminate, before its process group is killed.
const (
	exitGrace = 2 * time.Second
	termGrace = 2 * time.Second
)

// MaxMessageBytes is the largest message a client takes from its server:
// room for a 50 MiB file in base64, the size of the largest file keel
// takes from a user, where the SDK's default (16 MiB) would cut a tool's
// larger images off.
const MaxMessageBytes = 72 << 20

// stderrTail is how much of a server's standard error is kept for the
// errors that say why it failed: its last lines usually do.
const stderrTail = 4 << 10

// process is a running stdio server.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{} // closed once the process is reaped
	err    error         // Wait's, once exited is closed

	stderrDone chan struct{} // closed when standard error reaches EOF
	mu         sync.Mutex
	tail       []byte
}

// startProcess starts the server's command in a process group of its
// own, with env as its whole environment. Its standard error goes to
// logger at debug level, line by line, and its last lines are kept.
func startProcess(cfg *Config, env []string, logger *slog.Logger) (*process, io.ReadCloser, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env, cmd.Dir = env, cfg.Dir
	ownGroup(cmd)
	// A process the server started may keep its output open after the
	// server exits: Wait must not wait for it.
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	// Standard error is an os.Pipe, not cmd.StderrPipe: Wait closes the
	// latter when the process exits, which can lose the lines that say
	// why it did.
	errR, errW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stderr = errW
	if err := cmd.Start(); err != nil {
		errR.Close()
		errW.Close()
		return nil, nil, err
	}
	errW.Close()
	p := &process{cmd: cmd, stdin: stdin, exited: make(chan struct{}), stderrDone: make(chan struct{})}
	go p.readStderr(errR, cfg.Name, logger)
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, stdout, nil
}

func (p *process) readStderr(r *os.File, server string, logger *slog.Logger) {
	defer close(p.stderrDone)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		logger.Debug("mcp server stderr", "server", server, "line", string(line))
		p.mu.Lock()
		p.tail = append(p.tail, line...)
		p.tail = append(p.tail, '\n')
		if len(p.tail) > 2*stderrTail {
			p.tail = append(p.tail[:0], p.tail[len(p.tail)-stderrTail:]...)
		}
		p.mu.Unlock()
	}
}

// Stderr returns the last lines the server wrote to standard error.
func (p *process) Stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.tail
	if len(t) > stderrTail {
		t = t[len(t)-stderrTail:]
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			t = t[i+1:]
		}
	}
	return strings.TrimSpace(string(t))
}

// exitError describes how the process ended, with the last of its
// standard error: "exit status 1: Error: Cannot find module ...".
func (p *process) exitError() error {
	select {
	case <-p.exited:
	default:
		return errors.New("the server closed its output")
	}
	// The lines written just before the exit may still be in the pipe.
	select {
	case <-p.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
	msg := "the server exited"
	if p.err != nil {
		msg = p.err.Error()
	}
	if tail := p.Stderr(); tail != "" {
		msg += "; its last output: " + lastLines(tail, 5)
	}
	return errors.New(msg)
}

// waitExit waits at most d for the process to exit, and reports whether
// it did.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// stop ends the process and what it started: its input is closed, as the
// protocol asks, then it is told to terminate, then its group is killed.
// It returns once the process is reaped.
func (p *process) stop() {
	p.stdin.Close()
	if !p.waitExit(exitGrace) {
		signalGroup(p.cmd.Process, syscall.SIGTERM)
		if !p.waitExit(termGrace) {
			signalGroup(p.cmd.Process, syscall.SIGKILL)
			<-p.exited
		}
	}
	// Whatever the server started and left behind goes with it.
	signalGroup(p.cmd.Process, syscall.SIGKILL)
}

// stdioTransport connects to a started process over its standard input
// and output.
type stdioTransport struct {
	p      *process
	stdout io.ReadCloser
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	return (&sdk.IOTransport{Reader: t.stdout, Writer: t.p.stdin, MaxLineLength: MaxMessageBytes}).Connect(ctx)
}

// lastLines returns the last n lines of s, joined by " | " to fit in
// one error line.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// describeCommand is the command line of cfg, for messages.
func describeCommand(cfg *Config) string {
	return strings.TrimSpace(fmt.Sprintf("%s %s", cfg.Command, strings.Join(cfg.Args, " ")))
}
