package sandboxtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
)

// Limits are the resource limits to make a sandbox with for a check of
// [RunHardened]; a zero field keeps the sandbox's default.
type Limits struct {
	// Processes at once, threads included.
	Processes int
	// Memory, FileSize and Disk are in bytes.
	Memory, FileSize, Disk int64
	// Files is how many files, directories and links the sandbox may
	// hold.
	Files int64
	// CPUTime is per process.
	CPUTime time.Duration
}

// Hardened describes the sandboxes [RunHardened] checks.
type Hardened struct {
	// New returns a fresh, empty sandbox with limits l (zero fields: its
	// defaults). The sandbox must run commands. Required.
	New func(t *testing.T, l Limits) workspace.Sandbox
	// HostPath returns where sb's files are on the host. Nothing inside
	// may see it, and files its commands make must not belong to the
	// host's root there. Nil skips those checks, saying so.
	HostPath func(sb workspace.Sandbox) string
}

// RunHardened checks that commands cannot reach the host and are bound
// by limits: nothing kernel-wide is writable (/proc/sys, sysrq-trigger),
// the host's root is not mapped into the sandbox, the host path is not
// visible, and under the default limits 1,200 processes, a 2 GiB
// allocation and a 1.5 GB file are refused; each limit is set lower to
// see it bite and higher to see it let more through. Run it as root to
// check what matters (CI does): as another user, the host's root is out
// of reach anyway.
//
// The checks use the limits themselves and small overrides, so that a
// broken sandbox does not take the machine down, and take seconds each.
// They need a POSIX sh with coreutils (head, tail, dd, truncate, stat).
func RunHardened(t *testing.T, h Hardened) {
	t.Helper()
	t.Run("KernelWideReadOnly", func(t *testing.T) { testKernelWide(t, h) })
	t.Run("NotHostRoot", func(t *testing.T) { testNotHostRoot(t, h) })
	t.Run("HostPathHidden", func(t *testing.T) { testHostPathHidden(t, h) })
	t.Run("Processes", func(t *testing.T) { testProcesses(t, h) })
	t.Run("Memory", func(t *testing.T) { testMemory(t, h) })
	t.Run("FileSize", func(t *testing.T) { testFileSize(t, h) })
	t.Run("Disk", func(t *testing.T) { testDisk(t, h) })
	t.Run("QuotaBypasses", func(t *testing.T) { testQuotaBypasses(t, h) })
	t.Run("CPUTime", func(t *testing.T) { testCPUTime(t, h) })
	t.Run("Seccomp", func(t *testing.T) { testSeccomp(t, h) })
	t.Run("NoZombies", func(t *testing.T) { testZombies(t, h) })
}

// run runs line with a time limit long enough for a loaded machine.
func run(t *testing.T, sb workspace.Sandbox, line string) *workspace.CommandResult {
	t.Helper()
	res, err := as[workspace.CommandRunner](t, sb).RunCommand(context.Background(), workspace.Command{Line: line, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("Got(RunCommand(%q)) error %v; want it to run", line, err)
	}
	return res
}

// kernelFiles are kernel-wide settings a sandbox must not change: each
// write puts back what the file holds (or, for the write-only ones, asks
// for something harmless), so that a sandbox that fails the check
// changes nothing on the host.
var kernelFiles = []struct{ path, write string }{
	{"/proc/sys/kernel/core_pattern", `v=$(cat /proc/sys/kernel/core_pattern) && printf '%s\n' "$v" > /proc/sys/kernel/core_pattern`},
	{"/proc/sys/kernel/panic", `v=$(cat /proc/sys/kernel/panic) && printf '%s\n' "$v" > /proc/sys/kernel/panic`},
	{"/proc/sys/fs/file-max", `v=$(cat /proc/sys/fs/file-max) && printf '%s\n' "$v" > /proc/sys/fs/file-max`},
	{"/proc/sys/vm/drop_caches", `printf '1\n' > /proc/sys/vm/drop_caches`},
	{"/proc/sysrq-trigger", `printf 'h' > /proc/sysrq-trigger`}, // h prints the help
}

func testKernelWide(t *testing.T, h Hardened) {
	sb := h.New(t, Limits{})
	for _, f := range kernelFiles {
		res := run(t, sb, "{ "+f.write+"; } 2>&1; echo status=$?")
		out := string(res.Stdout)
		if strings.HasSuffix(strings.TrimSpace(out), "status=0") {
			t.Errorf("Got(write to %s) to succeed (%q); want it refused", f.path, out)
		}
		res = run(t, sb, "if [ -w "+f.path+" ]; then echo writable; fi")
		if strings.Contains(string(res.Stdout), "writable") {
			t.Errorf("Got(%s) writable for the command; want it read-only or absent", f.path)
		}
	}
}

func testNotHostRoot(t *testing.T, h Hardened) {
	sb := h.New(t, Limits{})
	// /proc/sys/kernel/overflowuid belongs to the host's root in every
	// sandbox: it is the kernel's, where an image's /usr belongs to the
	// container's own root (which a remapping engine maps to an
	// unprivileged host user).
	res := run(t, sb, "id -u; cat /proc/sys/kernel/overflowuid; stat -c %u /proc/sys/kernel/overflowuid; cat /proc/self/uid_map; touch made-inside")
	fields := strings.Fields(string(res.Stdout))
	if len(fields) < 3 {
		t.Fatalf("Got(id, overflowuid, owner of a kernel file) = %q, stderr %q; want three numbers", res.Stdout, res.Stderr)
	}
	if fields[0] == "0" {
		t.Errorf("Got(id -u) = 0; want an unprivileged user inside the sandbox")
	}
	// Files the host's root owns show as the overflow user only when
	// host uid 0 is mapped nowhere in the sandbox's user namespaces, so
	// no process in it can be the host's root (uid_map alone can name
	// uid 0 of an intermediate namespace).
	if fields[2] != fields[1] {
		t.Errorf("Got(owner of /proc/sys/kernel/overflowuid) = %s, overflow uid %s, uid_map %q; want the host's root unmapped: it must not be mapped into the sandbox",
			fields[2], fields[1], strings.Join(fields[3:], " "))
	}
	if h.HostPath == nil {
		t.Skip("no HostPath: the owner on the host of a file a command made is not checked")
	}
	fi, err := os.Stat(filepath.Join(h.HostPath(sb), "made-inside"))
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == 0 {
		t.Errorf("Got(host owner of a file a command made) = uid 0; want an unprivileged user")
	}
}

func testHostPathHidden(t *testing.T, h Hardened) {
	if h.HostPath == nil {
		t.Skip("no HostPath: whether the host path is visible is not checked")
	}
	sb := h.New(t, Limits{})
	host := h.HostPath(sb)
	// A background process makes sure more than the shell is looked at.
	line := `sleep 5 & for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do tr '\0' ' ' < "$f"; echo; done; ` +
		`cat /proc/self/mountinfo; pwd; kill $!`
	res := run(t, sb, line)
	if len(res.Stdout) == 0 {
		t.Fatalf("Got no output from %q (stderr %q); want the processes' command lines and the mounts", line, res.Stderr)
	}
	for _, l := range strings.Split(string(res.Stdout), "\n") {
		if strings.Contains(l, host) {
			t.Errorf("Got(%q) inside the sandbox; want the host path %s nowhere", l, host)
		}
	}
}

// startSleepers is a command that starts n background processes and says
// how many it started.
func startSleepers(n int) string {
	return fmt.Sprintf(`i=0; while [ $i -lt %d ]; do sleep 30 & i=$((i+1)); done; echo started $i`, n)
}

func testProcesses(t *testing.T, h Hardened) {
	for _, tc := range []struct {
		name  string
		l     Limits
		n     int
		allow bool
	}{
		{"Default1200Refused", Limits{}, 1200, false},
		{"Lower40Refuses60", Limits{Processes: 40}, 60, false},
		{"Higher600Allows300", Limits{Processes: 600}, 300, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, h.New(t, tc.l), startSleepers(tc.n))
			started := strings.Contains(string(res.Stdout), fmt.Sprintf("started %d", tc.n))
			if started != tc.allow {
				t.Errorf("Got(%d processes started) = %v (stdout %q, stderr %q); want %v",
					tc.n, started, res.Stdout, clip(res.Stderr), tc.allow)
			}
		})
	}
}

// allocate is a command that holds n bytes in memory at once (tail keeps
// the last n bytes it read) and prints how many it passed on.
func allocate(n int64) string {
	return fmt.Sprintf("head -c %d /dev/zero | tail -c %d | wc -c", n, n)
}

func testMemory(t *testing.T, h Hardened) {
	for _, tc := range []struct {
		name  string
		l     Limits
		n     int64
		allow bool
	}{
		{"Default2GiBRefused", Limits{}, 2 << 30, false},
		{"Lower64MiBRefuses100MiB", Limits{Memory: 64 << 20}, 100 << 20, false},
		{"Higher256MiBAllows100MiB", Limits{Memory: 256 << 20}, 100 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, h.New(t, tc.l), allocate(tc.n))
			got := strings.TrimSpace(string(res.Stdout))
			if allowed := got == strconv.FormatInt(tc.n, 10); allowed != tc.allow {
				t.Errorf("Got(%d bytes held) passed on %q (stderr %q); want allowed %v", tc.n, got, clip(res.Stderr), tc.allow)
			}
		})
	}
}

func testFileSize(t *testing.T, h Hardened) {
	t.Run("Default1.5GBRefused", func(t *testing.T) {
		sb := h.New(t, Limits{})
		// Growing a file to 1.5 GB by writing one byte there, and by
		// truncate: both are refused without writing the data.
		res := run(t, sb, "dd if=/dev/zero of=big bs=1 count=1 seek=1499999999 2>/dev/null; "+
			"truncate -s 1500000000 big2 2>/dev/null; stat -c %s big big2 2>/dev/null; true")
		for _, size := range strings.Fields(string(res.Stdout)) {
			if n, _ := strconv.ParseInt(size, 10, 64); n >= 1_500_000_000 {
				t.Errorf("Got(a %d byte file); want a 1.5 GB file refused", n)
			}
		}
	})
	for _, tc := range []struct {
		name  string
		l     Limits
		allow bool
	}{
		{"Lower1MiBRefuses2MB", Limits{FileSize: 1 << 20}, false},
		{"Higher4MiBAllows2MB", Limits{FileSize: 4 << 20}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, h.New(t, tc.l), "head -c 2000000 /dev/zero > f 2>/dev/null; stat -c %s f")
			if allowed := strings.TrimSpace(string(res.Stdout)) == "2000000"; allowed != tc.allow {
				t.Errorf("Got(2 MB file) of %q bytes (stderr %q); want allowed %v", res.Stdout, clip(res.Stderr), tc.allow)
			}
		})
	}
}

func testDisk(t *testing.T, h Hardened) {
	ctx := context.Background()
	upload := func(sb workspace.Sandbox) error {
		_, err := workspace.Upload(ctx, sb, "t1", "", workspace.File{Name: "data.bin", Data: pattern(300_000)})
		return err
	}
	t.Run("Lower1MiB", func(t *testing.T) {
		sb := h.New(t, Limits{Disk: 1 << 20})
		res := run(t, sb, "head -c 1500000 /dev/zero > f")
		if !strings.Contains(string(res.Stderr), "quota") {
			t.Errorf("Got(stderr %q) of a command going over the quota; want its result to say the sandbox is over its quota", res.Stderr)
		}
		if err := upload(sb); !errors.Is(err, workspace.ErrQuotaExceeded) {
			t.Errorf("Got(upload into a full sandbox) error %v; want workspace.ErrQuotaExceeded", err)
		}
		// Removing files is how to go on.
		run(t, sb, "rm f")
		if err := upload(sb); err != nil {
			t.Errorf("Got(upload after removing the file) error %v; want none", err)
		}
	})
	t.Run("LowerEndsAFillingCommand", func(t *testing.T) {
		sb := h.New(t, Limits{Disk: 4 << 20})
		start := time.Now()
		res := run(t, sb, `i=0; while :; do head -c 500000 /dev/zero > f$i; i=$((i+1)); done`)
		if !strings.Contains(string(res.Stderr), "quota") {
			t.Errorf("Got(stderr %q) of a command filling the sandbox; want it ended, saying it went over the quota", clip(res.Stderr))
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("Got(the filling command) ended after %v; want it ended soon after it went over", d)
		}
	})
	t.Run("Higher8MiB", func(t *testing.T) {
		sb := h.New(t, Limits{Disk: 8 << 20})
		res := run(t, sb, "head -c 1500000 /dev/zero > f && echo wrote")
		if !strings.Contains(string(res.Stdout), "wrote") || strings.Contains(string(res.Stderr), "quota") {
			t.Errorf("Got(stdout %q, stderr %q); want the file written and no word of the quota", res.Stdout, res.Stderr)
		}
		if err := upload(sb); err != nil {
			t.Errorf("Got(upload) error %v; want none", err)
		}
	})
}

// burnCPU is a command whose shell spins until it used seconds of CPU
// time (its own, from /proc), then says done.
func burnCPU(seconds float64) string {
	return fmt.Sprintf(`t=$(getconf CLK_TCK); lim=$((t*%d/10)); `+
		`while :; do read -r s < /proc/$$/stat; set -- ${s#*) }; [ $((${12}+${13})) -ge $lim ] && break; done; echo done`,
		int(seconds*10))
}

func testCPUTime(t *testing.T, h Hardened) {
	for _, tc := range []struct {
		name  string
		l     Limits
		allow bool
	}{
		{"Lower1sEnds1.5s", Limits{CPUTime: time.Second}, false},
		{"Higher3sAllows1.5s", Limits{CPUTime: 3 * time.Second}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, h.New(t, tc.l), burnCPU(1.5))
			if done := strings.Contains(string(res.Stdout), "done"); done != tc.allow {
				t.Errorf("Got(1.5 s of CPU finished) = %v (exit %d, stderr %q); want %v", done, res.ExitCode, clip(res.Stderr), tc.allow)
			}
		})
	}
}

// clip shortens a command's error output for a failure message.
func clip(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
