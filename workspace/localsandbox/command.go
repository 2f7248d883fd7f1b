package localsandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/keel-go/keel/workspace"
)

// drainGrace bounds how long output is still read after a command ended
// and its process group was killed. Only a process that left the group
// (possible when unisolated) can hold the pipes open longer.
const drainGrace = 2 * time.Second

// RunCommand runs c.Line with sh -c in the sandbox's working directory,
// inside bubblewrap when isolated. The command ends after c.Timeout (else
// the sandbox's CommandTimeout) or when ctx is done; then its whole process
// tree is killed and the error wraps context.DeadlineExceeded or ctx's
// error, with the output so far in the result. Background processes the
// command started do not outlive it.
func (s *Sandbox) RunCommand(ctx context.Context, c workspace.Command) (*workspace.CommandResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("localsandbox: run command: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = s.opts.CommandTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var cmd *exec.Cmd
	if s.Isolated() {
		args := append(slices.Clone(s.baseArgs), "--", "/bin/sh", "-c", c.Line)
		cmd = exec.Command(s.bwrap, args...)
	} else {
		cmd = exec.Command("/bin/sh", "-c", c.Line)
		cmd.Dir = s.dir
	}
	cmd.Env = s.env
	// A process group of its own lets one signal end the command and
	// everything it started (bubblewrap's children die with their pid
	// namespace when bwrap goes).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	p, err := newPipes(c.Stdin != nil)
	if err != nil {
		return nil, fmt.Errorf("localsandbox: run command: %w", err)
	}
	defer p.closeAll()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.childIn, p.childOut, p.childErr

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("localsandbox: run command: %w", err)
	}
	p.closeChildEnds()
	stdout := &cappedBuffer{max: s.opts.MaxOutput}
	stderr := &cappedBuffer{max: s.opts.MaxOutput}
	var readers sync.WaitGroup
	readers.Go(func() { _, _ = io.Copy(stdout, p.out) })
	readers.Go(func() { _, _ = io.Copy(stderr, p.errOut) })
	if p.in != nil {
		go func() {
			_, _ = p.in.Write(c.Stdin)
			_ = p.in.Close()
		}()
	}

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr, runErr error
	select {
	case waitErr = <-done:
	case <-runCtx.Done():
		killGroup(cmd.Process.Pid)
		waitErr = <-done
		if ctx.Err() != nil {
			runErr = fmt.Errorf("localsandbox: run command: %w", ctx.Err())
		} else {
			runErr = fmt.Errorf("localsandbox: run command: timed out after %v: %w", timeout, context.DeadlineExceeded)
		}
	}
	// Whatever the command left running in its group goes with it.
	killGroup(cmd.Process.Pid)
	p.waitReaders(&readers)

	res := &workspace.CommandResult{
		ExitCode:  cmd.ProcessState.ExitCode(),
		Stdout:    stdout.bytes(),
		Stderr:    stderr.bytes(),
		Truncated: stdout.truncated || stderr.truncated,
		Duration:  time.Since(start),
	}
	if runErr != nil {
		return res, runErr
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return res, fmt.Errorf("localsandbox: run command: %w", waitErr)
	}
	return res, nil
}

func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// pipes are the command's standard streams. They are os.Pipe files rather
// than exec's copying goroutines so that waiting for the process does not
// also wait for a background process holding the output open.
type pipes struct {
	childIn, childOut, childErr *os.File
	in, out, errOut             *os.File
}

func newPipes(withStdin bool) (*pipes, error) {
	p := &pipes{}
	var err error
	if p.out, p.childOut, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.errOut, p.childErr, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if withStdin {
		if p.childIn, p.in, err = os.Pipe(); err != nil {
			p.closeAll()
			return nil, err
		}
	}
	return p, nil
}

func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.childIn, p.childOut, p.childErr} {
		if f != nil {
			_ = f.Close()
		}
	}
}

func (p *pipes) closeAll() {
	for _, f := range []*os.File{p.childIn, p.childOut, p.childErr, p.in, p.out, p.errOut} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// waitReaders waits for the output to reach its end, or closes the pipes
// after drainGrace to stop reading from a process that escaped the group.
func (p *pipes) waitReaders(readers *sync.WaitGroup) {
	finished := make(chan struct{})
	go func() { readers.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(drainGrace):
		p.closeAll()
		<-finished
	}
	if p.in != nil {
		_ = p.in.Close() // unblocks a stdin write nobody reads
	}
}

// cappedBuffer keeps the first max bytes written to it and counts the rest
// as dropped; it never fails a write, so the command is never blocked on a
// full pipe.
type cappedBuffer struct {
	max       int
	buf       []byte
	truncated bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := b.max - len(b.buf)
	if len(p) > room {
		b.truncated = true
		b.buf = append(b.buf, p[:max(room, 0)]...)
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *cappedBuffer) bytes() []byte {
	if b.buf == nil {
		return []byte{}
	}
	return b.buf
}
