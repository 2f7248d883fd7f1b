package localsandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// IsolationError reports that bubblewrap cannot isolate commands here, and
// how to go on.
type IsolationError struct {
	// Bwrap is the binary that was tried; "" when none was found.
	Bwrap string
	// Reason says what went wrong, such as bwrap's own message.
	Reason string
	// Err is the underlying error, if any.
	Err error
}

// Error says that bwrap is missing or unusable and how to allow an
// unisolated sandbox instead.
func (e *IsolationError) Error() string {
	return "localsandbox: bubblewrap (bwrap) cannot isolate commands: " + e.Reason +
		"; install it (Debian: apt-get install bubblewrap) or set Options.AllowUnisolated" +
		" to run commands unisolated in the directory"
}

// Unwrap returns the underlying error.
func (e *IsolationError) Unwrap() error { return e.Err }

type probeResult struct {
	once sync.Once
	bin  string
	err  error
}

// probes caches, per configured binary, whether bubblewrap works: trying
// costs a process start, and the answer does not change while we run.
var probes sync.Map // string -> *probeResult

// probe returns the bwrap binary to use, or why there is none.
func probe(configured string) (string, error) {
	v, _ := probes.LoadOrStore(configured, &probeResult{})
	p := v.(*probeResult)
	p.once.Do(func() { p.bin, p.err = runProbe(configured) })
	return p.bin, p.err
}

func runProbe(configured string) (string, error) {
	name := configured
	if name == "" {
		name = "bwrap"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return "", &IsolationError{Reason: fmt.Sprintf("%s not found", name), Err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The probe sets up everything a real command gets, with a tmpfs in
	// place of the sandbox's directory, so a failure here is the failure
	// every command would have.
	args := append(slices.Clone(systemArgs()), "--tmpfs", HomeDir, "--chdir", HomeDir, "--", "/bin/sh", "-c", "exit 0")
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = commandEnv(HomeDir, nil)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		reason := strings.TrimSpace(stderr.String())
		if reason == "" {
			reason = err.Error()
		}
		return "", &IsolationError{Bwrap: bin, Reason: reason, Err: err}
	}
	return bin, nil
}

// isolationArgs are bwrap's arguments for a sandbox kept in dir, up to the
// command itself.
func isolationArgs(dir string) []string {
	return append(slices.Clone(systemArgs()), "--bind", dir, HomeDir, "--chdir", HomeDir)
}

// etcFiles are the only parts of /etc a command sees: enough for the
// dynamic loader, user names, time zones and Debian's alternatives
// (awk, editors), and nothing that describes the host's network or
// secrets.
var etcFiles = []string{
	"/etc/alternatives",
	"/etc/ld.so.cache",
	"/etc/ld.so.conf",
	"/etc/ld.so.conf.d",
	"/etc/passwd",
	"/etc/group",
	"/etc/nsswitch.conf",
	"/etc/localtime",
	"/etc/ssl/certs", // public CA certificates; /etc/ssl/private stays hidden
}

// systemArgs are the namespace and read-only system mounts every command
// gets. Merged-/usr systems have /bin, /lib... as symlinks into /usr; they
// are recreated as the same symlinks, older layouts are bound read-only.
// The slice is shared: clone it before appending.
var systemArgs = sync.OnceValue(func() []string {
	args := []string{
		"--unshare-all", // network, pid, ipc, uts, user and cgroup when possible
		"--die-with-parent",
		"--new-session",
		"--cap-drop", "ALL",
		"--hostname", "sandbox",
		"--ro-bind", "/usr", "/usr",
	}
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				args = append(args, "--symlink", target, d)
			}
		case fi.IsDir():
			args = append(args, "--ro-bind", d, d)
		}
	}
	for _, f := range etcFiles {
		args = append(args, "--ro-bind-try", f, f)
	}
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
	return args
})
