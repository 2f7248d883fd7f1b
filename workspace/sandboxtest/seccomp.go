package sandboxtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/workspace"
)

// blockedSyscalls are the syscalls container runtimes refuse by default,
// which a sandbox's commands must not be able to make, with the errno
// each must fail with: EPERM, or ENOSYS where a program is to take the
// syscall for missing and fall back (io_uring to plain reads, clone3 to
// clone, whose flags a filter can see). The names are the probe's (see
// internal/seccompprobe): clone_newns is clone with CLONE_NEWUTS.
var blockedSyscalls = map[string]string{
	"keyctl": "EPERM", "add_key": "EPERM", "request_key": "EPERM",
	"io_uring_setup": "ENOSYS", "io_uring_enter": "ENOSYS", "io_uring_register": "ENOSYS",
	"ptrace": "EPERM",
	"mount":  "EPERM", "umount2": "EPERM", "pivot_root": "EPERM",
	"open_tree": "EPERM", "fsconfig": "EPERM", "fsmount": "EPERM",
	"init_module": "EPERM", "finit_module": "EPERM", "delete_module": "EPERM",
	"kexec_load": "EPERM", "bpf": "EPERM", "perf_event_open": "EPERM", "userfaultfd": "EPERM",
	"unshare": "EPERM", "setns": "EPERM", "clone_newns": "EPERM", "clone3": "ENOSYS",
	"personality": "EPERM", "settimeofday": "EPERM", "name_to_handle_at": "EPERM",
}

// allowedSyscalls are the probe's controls: what every sandbox lets
// through, with the kernel's own answer.
var allowedSyscalls = map[string]string{"clone_plain": "EINVAL", "personality_query": "ok", "getpid": "ok"}

// SeccompProbe builds the seccomp probe, a static binary for this
// machine, into a temporary directory of t with the go command (its
// build cache makes every build after the first quick), and returns its
// path. A test that needs it fails when CI is set and go is missing, else
// skips. The probe prints, for each syscall, its name and the errno it
// got.
func SeccompProbe(t testing.TB) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	var out []byte
	path := filepath.Join(t.TempDir(), "seccompprobe")
	if err == nil {
		cmd := exec.Command(gobin, "build", "-o", path, "github.com/keel-go/keel/workspace/sandboxtest/internal/seccompprobe")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err = cmd.CombinedOutput()
	}
	if err != nil {
		msg := "cannot build the seccomp probe: " + err.Error() + " " + string(out)
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI is set, so this fails instead of skipping)", msg)
		}
		t.Skip(msg)
	}
	return path
}

// ParseProbe reads the probe's output: errno (or "ok") by syscall name.
func ParseProbe(out []byte) map[string]string {
	got := make(map[string]string)
	for _, line := range strings.Split(string(out), "\n") {
		if name, errno, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			got[name] = errno
		}
	}
	return got
}

func testSeccomp(t *testing.T, h Hardened) {
	t.Run("BlockedSyscallsFail", func(t *testing.T) {
		probe := SeccompProbe(t)
		data, err := os.ReadFile(probe)
		if err != nil {
			t.Fatal(err)
		}
		sb := h.New(t, Limits{})
		up, err := workspace.Upload(context.Background(), sb, "seccomp", "", workspace.File{Name: "probe", Data: data})
		if err != nil {
			t.Fatalf("Got(upload the probe) error %v; want it in the sandbox", err)
		}
		q := workspace.ShellQuote(up.RelPath)
		res := run(t, sb, "chmod 755 "+q+" && "+q)
		got := ParseProbe(res.Stdout)
		if len(got) == 0 {
			t.Fatalf("Got(probe output) = %q, stderr %q; want a line per syscall", res.Stdout, clip(res.Stderr))
		}
		for name, want := range blockedSyscalls {
			if got[name] != want {
				t.Errorf("Got(%s inside the sandbox) = %s; want it refused with %s", name, got[name], want)
			}
		}
		for name, want := range allowedSyscalls {
			if got[name] != want {
				t.Errorf("Got(%s inside the sandbox) = %s; want %s, the kernel's own answer", name, got[name], want)
			}
		}
	})
	t.Run("OrdinaryCommandsWork", func(t *testing.T) {
		sb := h.New(t, Limits{})
		for _, tc := range []struct{ line, want string }{
			{"echo hi | cat", "hi"},
			{"mkdir d && touch d/f && ls d", "f"},
			{"sh -c 'sleep 0.1 & wait; echo waited'", "waited"},
			{"seq 3 | sort -r | head -1", "3"},
			{"if command -v python3 >/dev/null; then python3 -c 'import os, subprocess; print(subprocess.run([\"true\"]).returncode, os.cpu_count() > 0)'; else echo 0 True; fi", "0 True"},
		} {
			res := run(t, sb, tc.line)
			if got := strings.TrimSpace(string(res.Stdout)); res.ExitCode != 0 || got != tc.want {
				t.Errorf("Got(%q) = exit %d, %q (stderr %q); want exit 0, %q", tc.line, res.ExitCode, got, clip(res.Stderr), tc.want)
			}
		}
	})
}
