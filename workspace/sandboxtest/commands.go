package sandboxtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
)

// bigOutput is more output than any sensible cap keeps.
const bigOutput = 64 << 20

func testCommands(t *testing.T, newSandbox func(t *testing.T) workspace.Sandbox) {
	ctx := context.Background()

	t.Run("ExitCodesAndStreams", func(t *testing.T) {
		r := as[workspace.CommandRunner](t, newSandbox(t))
		for _, tc := range []struct {
			line           string
			code           int
			stdout, stderr string
		}{
			{"true", 0, "", ""},
			{"false", 1, "", ""},
			{"exit 3", 3, "", ""},
			{"echo out; echo err >&2; exit 42", 42, "out\n", "err\n"},
			{"printf '%s' \"$HOME\" | grep -q . && echo home-set", 0, "home-set\n", ""},
			{"no-such-command-anywhere", 127, "", "*"},
		} {
			res, err := r.RunCommand(ctx, workspace.Command{Line: tc.line})
			if err != nil {
				t.Errorf("Got(RunCommand(%q)) error %v; want none", tc.line, err)
				continue
			}
			if res.ExitCode != tc.code {
				t.Errorf("Got(RunCommand(%q).ExitCode) = %d; want %d", tc.line, res.ExitCode, tc.code)
			}
			if string(res.Stdout) != tc.stdout {
				t.Errorf("Got(RunCommand(%q).Stdout) = %q; want %q", tc.line, res.Stdout, tc.stdout)
			}
			if tc.stderr == "*" {
				if len(res.Stderr) == 0 {
					t.Errorf("Got(RunCommand(%q).Stderr) empty; want a message", tc.line)
				}
			} else if string(res.Stderr) != tc.stderr {
				t.Errorf("Got(RunCommand(%q).Stderr) = %q; want %q", tc.line, res.Stderr, tc.stderr)
			}
			if res.Truncated {
				t.Errorf("Got(RunCommand(%q).Truncated) = true; want false", tc.line)
			}
		}
	})

	t.Run("Stdin", func(t *testing.T) {
		r := as[workspace.CommandRunner](t, newSandbox(t))
		in := pattern(200_000) // more than a pipe buffer
		res, err := r.RunCommand(ctx, workspace.Command{Line: "cat", Stdin: in})
		if err != nil {
			t.Fatalf("Got(RunCommand(cat)) error %v; want none", err)
		}
		equalBytes(t, "cat of stdin", res.Stdout, in)
	})

	t.Run("WorkDir", func(t *testing.T) {
		sb := newSandbox(t)
		r := as[workspace.CommandRunner](t, sb)
		wd := as[workspace.WorkDirer](t, sb)
		res := mustRun(t, r, "pwd")
		if got := strings.TrimSpace(string(res.Stdout)); got != wd.WorkDir() {
			t.Errorf("Got(pwd) = %q; want WorkDir() %q", got, wd.WorkDir())
		}
	})

	t.Run("TimeLimit", func(t *testing.T) {
		sb := newSandbox(t)
		r := as[workspace.CommandRunner](t, sb)
		start := time.Now()
		// The limit leaves a loaded machine time to start the shell and
		// its ticker; the first tick is written before the ticker starts.
		_, err := r.RunCommand(ctx, workspace.Command{Line: "echo 0 > tick\n" + tickLine + "\nsleep 30", Timeout: 2 * time.Second})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Got(RunCommand(sleep 30) with a 2s limit) error %v; want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 12*time.Second {
			t.Errorf("Got(RunCommand) returned after %v; want soon after 2s", d)
		}
		wantTreeGone(t, sb)
	})

	t.Run("CancelKillsTree", func(t *testing.T) {
		sb := newSandbox(t)
		r := as[workspace.CommandRunner](t, sb)
		cctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() {
			_, err := r.RunCommand(cctx, workspace.Command{Line: tickLine + "\nsleep 30"})
			errc <- err
		}()
		waitFor(t, "tick from the background process", 10*time.Second, func() bool {
			return len(readIn(t, sb, "tick")) > 0
		})
		start := time.Now()
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Got(RunCommand) error %v after cancel; want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Got no return from RunCommand within 10s of cancel; want a prompt one")
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Got(RunCommand) returned %v after cancel; want promptly", d)
		}
		wantTreeGone(t, sb)
	})

	t.Run("OutputCapped", func(t *testing.T) {
		r := as[workspace.CommandRunner](t, newSandbox(t))
		line := fmt.Sprintf("head -c %d /dev/zero; echo finished >&2", bigOutput)
		res, err := r.RunCommand(ctx, workspace.Command{Line: line})
		if err != nil {
			t.Fatalf("Got(RunCommand(%q)) error %v; want none: output beyond the cap is dropped, not fatal", line, err)
		}
		if !res.Truncated || len(res.Stdout) >= bigOutput {
			t.Errorf("Got(%d bytes, Truncated %v); want fewer than %d bytes and Truncated", len(res.Stdout), res.Truncated, bigOutput)
		}
		if !bytes.Equal(res.Stderr, []byte("finished\n")) || res.ExitCode != 0 {
			t.Errorf("Got(stderr %q, exit %d); want %q, 0: the command must run to its end", res.Stderr, res.ExitCode, "finished\n")
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		r := as[workspace.CommandRunner](t, newSandbox(t))
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				line := fmt.Sprintf("echo %d", i)
				res, err := r.RunCommand(ctx, workspace.Command{Line: line})
				if err != nil || string(res.Stdout) != fmt.Sprintf("%d\n", i) {
					t.Errorf("Got(RunCommand(%q)) = %v, %v; want %q", line, res, err, fmt.Sprintf("%d\n", i))
				}
			})
		}
		wg.Wait()
	})
}

// tickLine starts a background grandchild that writes a growing counter to
// ./tick every 50 ms for as long as it lives. Each count is renamed into
// place, so that a kill between truncating and writing cannot leave tick
// empty.
const tickLine = `( i=0; while :; do i=$((i+1)); echo $i > tick.new && mv -f tick.new tick; sleep 0.05; done ) &`

// wantTreeGone checks that the background ticker stopped: its counter does
// not move any more.
func wantTreeGone(t *testing.T, sb workspace.Sandbox) {
	t.Helper()
	first := readIn(t, sb, "tick")
	if len(first) == 0 {
		t.Fatalf("Got no tick from the background process; want one before it was killed")
	}
	time.Sleep(400 * time.Millisecond)
	second := readIn(t, sb, "tick")
	if !bytes.Equal(first, second) {
		t.Errorf("Got(tick) %q then %q; want no change: the background process outlived its command", first, second)
	}
}
