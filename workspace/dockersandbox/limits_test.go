package dockersandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/dockersandbox"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// TestLimitsReadBack: what the sandbox asks for is what the engine says
// its container has.
func TestLimitsReadBack(t *testing.T) {
	sb := newSandbox(t, dockersandbox.Options{
		Limits: localsandbox.Limits{Processes: 77, Memory: 300 << 20, FileSize: 5 << 20, CPUTime: 90 * time.Second},
		CPUs:   0.5,
	})
	ctx := context.Background()
	mustRun(t, sb, "true")
	got, err := dockersandbox.Inspect(ctx, sb)
	if err != nil {
		t.Fatal(err)
	}
	hc := got.HostConfig
	pids := int64(-1)
	if hc.PidsLimit != nil {
		pids = *hc.PidsLimit
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"NetworkMode", hc.NetworkMode, "none"},
		{"ReadonlyRootfs", hc.ReadonlyRootfs, true},
		{"CapDrop", strings.Join(hc.CapDrop, ","), "ALL"},
		{"no-new-privileges", slices.Contains(hc.SecurityOpt, "no-new-privileges"), true},
		{"seccomp profile", seccompRule(t, hc.SecurityOpt, "ptrace"), "SCMP_ACT_ERRNO 1"},
		{"seccomp fallocate", seccompRule(t, hc.SecurityOpt, "fallocate"), "SCMP_ACT_ERRNO 28"},
		{"seccomp io_uring", seccompRule(t, hc.SecurityOpt, "io_uring_setup"), "SCMP_ACT_ERRNO 38"},
		{"PidsLimit", pids, int64(77 + dockersandbox.ContainerProcesses)},
		{"Memory", hc.Memory, int64(300 << 20)},
		{"MemorySwap", hc.MemorySwap, int64(300 << 20)},
		{"NanoCpus", hc.NanoCpus, int64(5e8)},
		{"Ulimits", fmt.Sprint(hc.Ulimits), "[{core 0 0} {fsize 5242880 5242880} {cpu 90 91}]"},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("Got(inspect %s) = %v; want %v", c.name, c.got, c.want)
		}
	}
	res := mustRun(t, sb, "id -u; id -g; cat /proc/self/status | grep -E '^(CapEff|NoNewPrivs|Seccomp):'")
	want := "1000\n1000\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\nSeccomp:\t2\n"
	if string(res.Stdout) != want {
		t.Errorf("Got(the command's user and privileges) = %q; want %q", res.Stdout, want)
	}
}

// TestLimitsExceeded: a fork bomb stops at the process limit (and is
// ended with its command), a 2 GiB allocation is killed at the memory
// limit, and no connection leaves the container, not even to the host's
// loopback, where keel's own API listens.
func TestLimitsExceeded(t *testing.T) {
	t.Parallel() // mostly waits on its commands' time limits
	ctx := context.Background()
	t.Run("ForkBomb", func(t *testing.T) {
		sb := newSandbox(t, dockersandbox.Options{Limits: localsandbox.Limits{Processes: 100, Disk: -1}})
		// Only shell builtins run once the bomb took every process: read
		// waits on /dev/zero for its time limit, then reads the cgroup's
		// limit and how many forks it refused.
		line := `b() { b | b & }; b 2>/dev/null & read -t 5 x < /dev/zero; ` +
			`read -r max < /sys/fs/cgroup/pids/pids.max; read -r ev n < /sys/fs/cgroup/pids/pids.events; echo "$max $ev $n"`
		start := time.Now()
		res, err := sb.RunCommand(ctx, workspace.Command{Line: line, Timeout: time.Minute})
		if err != nil {
			t.Fatalf("Got(RunCommand(fork bomb)) error %v; want its result", err)
		}
		t.Logf("pids.max, pids.events: %s", res.Stdout)
		want := fmt.Sprint(100 + dockersandbox.ContainerProcesses)
		if f := strings.Fields(string(res.Stdout)); len(f) != 3 || f[0] != want || f[1] != "max" || f[2] == "0" {
			t.Errorf("Got(pids.max, pids.events) = %q; want %s and forks refused at the limit", res.Stdout, want)
		}
		if d := time.Since(start); d > 45*time.Second {
			t.Errorf("Got(the bomb's command) ended after %v; want soon after its 5 s", d)
		}
		// The bomb went with its command: the sandbox runs commands again.
		if got := mustRun(t, sb, "echo alive").Stdout; string(got) != "alive\n" {
			t.Errorf("Got(a command after the bomb) = %q; want alive", got)
		}
	})
	t.Run("Memory2GiB", func(t *testing.T) {
		sb := newSandbox(t, dockersandbox.Options{})
		res := mustRunAny(t, sb, "head -c 2147483648 /dev/zero | tail -c 2147483648 | wc -c")
		if strings.TrimSpace(string(res.Stdout)) == "2147483648" {
			t.Errorf("Got(2 GiB held in memory); want it killed at the 1 GiB limit")
		}
	})
	t.Run("Network", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		accepted := make(chan struct{}, 1)
		go func() {
			if c, err := ln.Accept(); err == nil {
				c.Close()
				accepted <- struct{}{}
			}
		}()
		port := ln.Addr().(*net.TCPAddr).Port
		sb := newSandbox(t, dockersandbox.Options{})
		res := mustRunAny(t, sb, fmt.Sprintf("cat /proc/net/dev; nc -w 2 127.0.0.1 %d </dev/null && echo connected", port))
		var ifaces []string
		for _, l := range strings.Split(string(res.Stdout), "\n") {
			if name, _, ok := strings.Cut(l, ":"); ok && !strings.Contains(name, "|") {
				ifaces = append(ifaces, strings.TrimSpace(name))
			}
		}
		if !slices.Equal(ifaces, []string{"lo"}) {
			t.Errorf("Got(network interfaces) = %q; want only lo", ifaces)
		}
		select {
		case <-accepted:
			t.Errorf("Got(a connection from the sandbox to the host's loopback); want none")
		case <-time.After(100 * time.Millisecond):
		}
		if strings.Contains(string(res.Stdout), "connected") {
			t.Errorf("Got(connected) from the sandbox; want no connection anywhere")
		}
	})
}

// mustRun runs line and fails the test unless it exited 0.
func mustRun(t *testing.T, r workspace.CommandRunner, line string) *workspace.CommandResult {
	t.Helper()
	res := mustRunAny(t, r, line)
	if res.ExitCode != 0 {
		t.Fatalf("Got(RunCommand(%q)) exit %d, stderr %q; want 0", line, res.ExitCode, res.Stderr)
	}
	return res
}

// mustRunAny runs line and fails the test unless it ran.
func mustRunAny(t *testing.T, r workspace.CommandRunner, line string) *workspace.CommandResult {
	t.Helper()
	res, err := r.RunCommand(context.Background(), workspace.Command{Line: line, Timeout: time.Minute})
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Got(RunCommand(%q)) error %v; want it to run", line, err)
	}
	if err != nil {
		t.Fatalf("Got(RunCommand(%q)) timed out; want it to end", line)
	}
	return res
}

// seccompRule finds, in the seccomp profile among a container's security
// options (as the engine reads them back), the rule naming syscall and
// says its action and errno: "" when there is none.
func seccompRule(t *testing.T, opts []string, syscall string) string {
	t.Helper()
	for _, o := range opts {
		raw, ok := strings.CutPrefix(o, "seccomp=")
		if !ok {
			continue
		}
		var p struct {
			Syscalls []struct {
				Names    []string
				Action   string
				ErrnoRet *uint
			}
		}
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			t.Fatalf("Got(seccomp option) not JSON: %v; want the profile", err)
		}
		for _, sc := range p.Syscalls {
			if slices.Contains(sc.Names, syscall) {
				if sc.ErrnoRet == nil {
					return sc.Action
				}
				return fmt.Sprintf("%s %d", sc.Action, *sc.ErrnoRet)
			}
		}
	}
	return ""
}
