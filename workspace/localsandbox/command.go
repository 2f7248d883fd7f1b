package localsandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/capped"
	"golang.org/x/sys/unix"
)

// drainGrace bounds how long output is still read after a command ended
// and its process group was killed. Only a process that left the group
// (possible when unisolated) can hold the pipes open longer.
const drainGrace = 2 * time.Second

// errQuotaKill is the cause of a command ended for taking its sandbox
// over its disk quota.
var errQuotaKill = errors.New("over the disk quota")

// RunCommand runs c.Line with sh -c in the sandbox's working directory,
// inside bubblewrap when isolated. The command ends after c.Timeout (else
// the sandbox's CommandTimeout) or when ctx is done; then its whole process
// tree is killed and the error wraps context.DeadlineExceeded or ctx's
// error, with the output so far in the result. Background processes the
// command started do not outlive it. A command that takes the sandbox over
// its disk quota is ended; that one, and any command after which the
// sandbox is over its quota, returns its result with a last line of
// Stderr saying so. When the sandbox's commands are off, RunCommand
// returns an [*IsolationError] and runs nothing.
func (s *Sandbox) RunCommand(ctx context.Context, c workspace.Command) (*workspace.CommandResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("localsandbox: run command: %w", err)
	}
	if s.mode == modeOff {
		return nil, s.off
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = s.opts.CommandTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	runCtx, cancelCause := context.WithCancelCause(runCtx)
	defer cancelCause(nil)

	var (
		cmd *exec.Cmd
		inv *invocation
		err error
	)
	quota := watchQuota(s, func() { cancelCause(errQuotaKill) })
	lims := rlimits(s.opts.Limits, s.enf)
	if s.mode == modeIsolated {
		if inv, err = newInvocation(s.bwrap, s.user, s.opts.Limits, s.dir, s.mounted, s.filter); err != nil {
			quota.finish()
			return nil, fmt.Errorf("localsandbox: run command: %w", err)
		}
		defer inv.close()
		name, args := s.bwrap.command(lims, c.Line)
		cmd = exec.CommandContext(runCtx, name, args...)
		inv.prepare(cmd, s.env)
	} else {
		cmd = exec.CommandContext(runCtx, "/bin/sh", "-c", c.Line)
		cmd.Env = s.env
		cmd.Dir = s.dir
		cmd.SysProcAttr = s.user.sysProcAttr()
	}
	// The process group is the command and everything it started
	// (bubblewrap's children die with its pid namespace when it goes).
	cmd.Cancel = func() error {
		killGroup(cmd.Process.Pid)
		return nil
	}
	out, err := s.pipes(cmd, c.Stdin != nil)
	if err != nil {
		quota.finish()
		return nil, fmt.Errorf("localsandbox: run command: %w", err)
	}

	var g *group
	if s.mode == modeIsolated {
		if g, err = s.cg.join(s.dir, s.opts.Limits); err != nil {
			quota.finish()
			return nil, fmt.Errorf("localsandbox: run command: make the sandbox's cgroup: %w", err)
		}
		defer s.cg.leave(g)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		quota.finish()
		return nil, fmt.Errorf("localsandbox: run command: %w", err)
	}
	out.start(c.Stdin)
	if inv != nil {
		inv.started()
		err = s.confine(cmd.Process.Pid, g, lims)
		if err == nil {
			err = inv.mount(cmd.Process.Pid)
		}
		if err == nil {
			err = inv.sendArgs()
		}
		if err != nil {
			killGroup(cmd.Process.Pid)
			_ = cmd.Wait()
			quota.finish()
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return nil, fmt.Errorf("localsandbox: run command: %w", err)
		}
	}
	// Whatever the command left running in its group goes with it, as
	// soon as it exits: waiting without reaping keeps its process group
	// from being reused until the kill is done.
	waitExited(cmd.Process.Pid)
	killGroup(cmd.Process.Pid)
	out.drain()
	waitErr := cmd.Wait()
	out.wait()
	note := quota.finish()

	res := &workspace.CommandResult{
		ExitCode:  cmd.ProcessState.ExitCode(),
		Stdout:    out.stdout.Bytes(),
		Stderr:    out.stderr.Bytes(),
		Truncated: out.stdout.Truncated || out.stderr.Truncated,
		Duration:  time.Since(start),
	}
	if note != "" {
		if len(res.Stderr) > 0 && res.Stderr[len(res.Stderr)-1] != '\n' {
			res.Stderr = append(res.Stderr, '\n')
		}
		res.Stderr = append(res.Stderr, note+"\n"...)
	}
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("localsandbox: run command: %w", ctx.Err())
	case context.Cause(runCtx) == errQuotaKill:
		return res, nil
	case runCtx.Err() != nil:
		return res, fmt.Errorf("localsandbox: run command: timed out after %v: %w", timeout, context.DeadlineExceeded)
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return res, fmt.Errorf("localsandbox: run command: %w", waitErr)
	}
	return res, nil
}

// confine puts the bwrap process pid, still waiting for its arguments,
// into the sandbox's cgroup and sets its resource limits, so that
// everything it starts is bound by them.
func (s *Sandbox) confine(pid int, g *group, lims map[int]uint64) error {
	if g != nil {
		if err := g.add(pid); err != nil {
			return fmt.Errorf("join the sandbox's cgroup: %w", err)
		}
	}
	if s.bwrap.prlimit != "" {
		return nil // prlimit, which runs bwrap, sets them
	}
	return setRlimits(pid, lims)
}

func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// waitExited blocks until the process pid has exited, leaving it to be
// reaped by exec.Cmd.Wait.
func waitExited(pid int) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// output reads a command's stdout and stderr, and feeds its stdin.
type output struct {
	stdout, stderr capped.Buffer
	outR, errR     io.Reader
	in             io.WriteCloser
	readers        sync.WaitGroup
}

// pipes gives cmd its standard streams. They are exec's pipes, given to
// the user commands run as: a command that opens /dev/stdout opens its
// pipe again, which the file permissions of the pipe decide.
func (s *Sandbox) pipes(cmd *exec.Cmd, withStdin bool) (*output, error) {
	o := &output{stdout: capped.Buffer{Max: s.opts.MaxOutput}, stderr: capped.Buffer{Max: s.opts.MaxOutput}}
	var err error
	if o.outR, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if o.errR, err = cmd.StderrPipe(); err != nil {
		return nil, err
	}
	ends := []any{o.outR, o.errR}
	if withStdin {
		if o.in, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		ends = append(ends, o.in)
	}
	if s.user.dedicated {
		for _, e := range ends {
			if err := e.(interface{ Chown(uid, gid int) error }).Chown(s.user.uid, s.user.gid); err != nil {
				return nil, fmt.Errorf("give the command's pipes to uid %d: %w", s.user.uid, err)
			}
		}
	}
	return o, nil
}

// start reads the output and writes stdin, once the command started.
func (o *output) start(stdin []byte) {
	o.readers.Go(func() { _, _ = io.Copy(&o.stdout, o.outR) })
	o.readers.Go(func() { _, _ = io.Copy(&o.stderr, o.errR) })
	if o.in != nil {
		go func() {
			_, _ = o.in.Write(stdin)
			_ = o.in.Close()
		}()
	}
}

// drain waits for the output to reach its end, for at most drainGrace:
// only a process that left the command's group (possible when
// unisolated) keeps it open longer, and exec.Cmd.Wait then closes it.
func (o *output) drain() {
	done := make(chan struct{})
	go func() { o.readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainGrace):
	}
}

// wait returns once the readers stopped, which Wait's closing of the
// pipes guarantees.
func (o *output) wait() { o.readers.Wait() }
