package dockersandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/keel-go/keel/workspace/internal/capped"
)

// drainGrace bounds how long output is still read after a command was
// told to end: only a process that left the command's session (setsid)
// can hold its output open longer.
const drainGrace = 3 * time.Second

// killTimeout bounds keel's kill of a command, after which the container
// itself is killed.
const killTimeout = 10 * time.Second

// wrapperGrace is how much longer than keel's time limit the container's
// watcher waits before it ends the command itself: keel ends it first;
// the watcher's deadline is for a command whose keel went away. It is
// Unix time, read on the engine's clock: clocks apart by more than this
// end commands early or late by as much.
const wrapperGrace = 10 * time.Second

// execRequest is one exec of a line under the wrapper.
type execRequest struct {
	line      string
	stdin     []byte
	timeout   time.Duration
	maxOutput int
	// measure asks the wrapper to report the working directory's size
	// before and after the command, with files the limit on its entries
	// (0 for none) and quota the disk quota in bytes (see wrapperScript).
	measure bool
	files   int64
	quota   int64
	// watch, when not nil, is called once the wrapper reported the size
	// before the command (or failed to), which it does just before it
	// starts the command, with that size (or why there is none) and a
	// function that ends the command; it must return once stop is closed.
	// It is not called when the exec ends before that.
	watch func(before int64, beforeErr error, end func(cause error), stop <-chan struct{})
	// readOnly says that the line only reads (a measurement): when ctx
	// ends, its stream is closed and it is left to finish by itself, as
	// ending it would cost an exec of its own. Its time limit still ends
	// it.
	readOnly bool
}

// execResult is what an exec did.
type execResult struct {
	exit           int
	stdout, stderr []byte
	truncated      bool
	// before and after are the wrapper's measurements in bytes, and why
	// there was none.
	before, after       int64
	beforeErr, afterErr error
	duration            time.Duration
}

// execCreate is what POST /containers/{id}/exec takes.
type execCreate struct {
	AttachStdin  bool
	AttachStdout bool
	AttachStderr bool
	Tty          bool
	Env          []string
	WorkingDir   string
	Cmd          []string
}

// exec runs req.line in the container under the wrapper, making the
// container run first when it is missing or stopped. It returns the
// result with an error wrapping context.DeadlineExceeded after the time
// limit, ctx's error when ctx ended, or the cause given to end by the
// watch; the command's processes are ended in those cases.
func (s *Sandbox) exec(ctx context.Context, req execRequest) (*execResult, error) {
	token := newToken()
	measure := "0"
	if req.measure {
		measure = "1"
	}
	body := execCreate{
		AttachStdin: req.stdin != nil, AttachStdout: true, AttachStderr: true,
		Env:        append(s.env(), "KEEL_COMMAND="+token),
		WorkingDir: HomeDir,
		Cmd: []string{"/bin/sh", "-c", wrapperScript, "keel-command", req.line,
			strconv.FormatInt(time.Now().Add(req.timeout+wrapperGrace).Unix(), 10), measure,
			strconv.FormatInt(max(req.files, 0), 10), strconv.FormatInt(max(req.quota, 0), 10)},
	}
	var created struct {
		ID string `json:"Id"`
	}
	err := s.engine.call(ctx, "POST", "/containers/"+s.name+"/exec", nil, body, &created)
	if gone(err) {
		if err = s.ensure(ctx); err == nil {
			err = s.engine.call(ctx, "POST", "/containers/"+s.name+"/exec", nil, body, &created)
		}
	}
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithTimeout(ctx, req.timeout)
	defer cancel()
	runCtx, cancelCause := context.WithCancelCause(runCtx)
	defer cancelCause(nil)

	st, err := s.engine.startExec(ctx, created.ID)
	if err != nil {
		return nil, err
	}
	defer st.close()
	start := time.Now()
	stdout := &capped.Buffer{Max: req.maxOutput}
	stderr := newDiskFilter(req.maxOutput, token, req.measure)
	done := make(chan error, 1)
	go func() { done <- demux(st.r, stdout, stderr) }()
	if req.stdin != nil {
		go func() {
			_, _ = st.conn.Write(req.stdin)
			_ = st.closeWrite()
		}()
	}
	stopWatch := make(chan struct{})
	watching := make(chan struct{})
	if req.watch != nil {
		go func() {
			defer close(watching)
			// The command has not started before the wrapper's first
			// line: nothing to watch until then, which on a loaded
			// machine is most of a short command's exec.
			select {
			case <-stderr.headSeen:
			case <-stopWatch:
				return
			}
			before, beforeErr := stderr.beforeValue()
			req.watch(before, beforeErr, cancelCause, stopWatch)
		}()
	} else {
		close(watching)
	}

	var streamErr error
	select {
	case streamErr = <-done:
	case <-runCtx.Done():
		if req.readOnly && ctx.Err() != nil {
			st.close()
		} else {
			s.end(context.WithoutCancel(ctx), created.ID, token)
		}
		select {
		case streamErr = <-done:
		case <-time.After(drainGrace):
			st.close()
			streamErr = <-done
		}
	}
	close(stopWatch)
	<-watching
	res := &execResult{stdout: stdout.Bytes(), duration: time.Since(start)}
	res.stderr, res.truncated = stderr.result()
	res.truncated = res.truncated || stdout.Truncated
	res.before, res.beforeErr = stderr.beforeValue()
	res.after, res.afterErr = stderr.afterValue()

	switch {
	case ctx.Err() != nil:
		res.exit = -1
		return res, ctx.Err()
	case context.Cause(runCtx) != nil && !errors.Is(context.Cause(runCtx), context.DeadlineExceeded) &&
		!errors.Is(context.Cause(runCtx), context.Canceled):
		res.exit = -1
		return res, context.Cause(runCtx)
	case runCtx.Err() != nil:
		res.exit = -1
		return res, fmt.Errorf("timed out after %v: %w", req.timeout, context.DeadlineExceeded)
	}
	if _, ok := errors.AsType[*errSystem](streamErr); ok {
		return res, streamErr
	}
	code, err := s.exitCode(ctx, created.ID, true)
	if err != nil {
		return res, err
	}
	res.exit = code
	return res, nil
}

// end tells the wrapper of the exec to end its command. When that cannot
// run (no process can be started in a container that is at its process
// limit) or the wrapper never says where it is, the container is killed
// instead.
func (s *Sandbox) end(ctx context.Context, execID, token string) {
	ctx, cancel := context.WithTimeout(ctx, killTimeout)
	defer cancel()
	for range 20 {
		res, err := s.execPlain(ctx, []string{"/bin/sh", "-c", killScript, "keel-kill", token})
		if err != nil {
			break
		}
		if res != killNotStarted {
			return
		}
		// The wrapper has not started yet, or has ended.
		if code, err := s.exitCode(ctx, execID, false); err != nil || code != running {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = s.kill(ctx)
}

// execPlain runs cmd without the wrapper, for keel's own short commands,
// and returns its exit code; its output is dropped.
func (s *Sandbox) execPlain(ctx context.Context, cmd []string) (int, error) {
	body := execCreate{AttachStdout: true, AttachStderr: true, Env: s.env(), WorkingDir: HomeDir, Cmd: cmd}
	var created struct {
		ID string `json:"Id"`
	}
	if err := s.engine.call(ctx, "POST", "/containers/"+s.name+"/exec", nil, body, &created); err != nil {
		return -1, err
	}
	st, err := s.engine.startExec(ctx, created.ID)
	if err != nil {
		return -1, err
	}
	var sink capped.Buffer
	err = demux(st.r, &sink, &sink)
	st.close()
	if err != nil {
		return -1, err
	}
	return s.exitCode(ctx, created.ID, true)
}

// running is what exitCode returns for an exec that still runs when it
// was told not to wait.
const running = -2

// exitCode waits for the exec to be reported ended and returns its exit
// code. The engine sets it before it closes the streams, so the first
// look nearly always finds it.
func (s *Sandbox) exitCode(ctx context.Context, id string, wait bool) (int, error) {
	delay := 5 * time.Millisecond
	for {
		var info struct {
			Running  bool
			ExitCode int
		}
		if err := s.engine.call(ctx, "GET", "/exec/"+id+"/json", nil, nil, &info); err != nil {
			return -1, err
		}
		if !info.Running {
			return info.ExitCode, nil
		}
		if !wait {
			return running, nil
		}
		select {
		case <-ctx.Done():
			return -1, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

func newToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
