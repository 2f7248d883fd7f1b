package localsandbox

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// IsolationError reports that a sandbox's commands are off: bubblewrap is
// missing or cannot isolate them here. Files still work.
type IsolationError struct {
	// Bwrap is the binary that was tried; "" when none was found.
	Bwrap string
	// Reason says what is wrong, such as bwrap's own message.
	Reason string
	// Hint says how to mend it.
	Hint string
	// Err is the underlying error, if any.
	Err error
}

// Error says that sandbox commands are off, why, and what to do.
func (e *IsolationError) Error() string {
	return "localsandbox: sandbox commands are off: " + e.Reason + "; " + e.Hint
}

// Unwrap returns the underlying error.
func (e *IsolationError) Unwrap() error { return e.Err }

// installHint is what to do when bubblewrap is missing.
const installHint = "install it to run commands isolated (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"

// bwrapInfo is a bubblewrap binary that works here, and the options it
// knows beyond the ones every supported version has.
type bwrapInfo struct {
	bin string
	// size: --size for a tmpfs (0.7); disableUserns: --disable-userns
	// (0.8); bindData: --ro-bind-data (0.5).
	size, disableUserns, bindData bool
	// prlimit is util-linux's prlimit, run before bwrap to set the
	// resource limits when keel may not set them on a process of another
	// user itself: root without CAP_SYS_RESOURCE, as in containers. ""
	// when keel sets them with prlimit(2).
	prlimit string
	// noRlimits says why resource limits cannot be set; "" when they can.
	noRlimits string
	// noSeccomp says why commands run without a seccomp filter; "" when
	// bwrap loads keel's.
	noSeccomp string
}

type probeKey struct {
	bin      string
	uid, gid int
}

type probeResult struct {
	once sync.Once
	info bwrapInfo
	err  error
}

// probes caches, per binary and user, whether bubblewrap works: trying
// costs two process starts, and the answer does not change while keel
// runs. Finding the binary is done each time, so that a PATH without it
// is seen.
var probes sync.Map // probeKey -> *probeResult

// probe returns the bwrap to use as the user u, or why there is none.
func probe(configured string, u runAs) (bwrapInfo, error) {
	name := configured
	name = cmp.Or(name, "bwrap")
	bin, err := exec.LookPath(name)
	if err != nil {
		reason := "bubblewrap is not available (" + name + " not found)"
		if configured == "" {
			reason = "bubblewrap is not available (no bwrap in PATH)"
		}
		return bwrapInfo{}, &IsolationError{Reason: reason, Hint: installHint, Err: err}
	}
	v, _ := probes.LoadOrStore(probeKey{bin, u.uid, u.gid}, &probeResult{})
	p := v.(*probeResult)
	p.once.Do(func() { p.info, p.err = runProbe(bin, u) })
	return p.info, p.err
}

func runProbe(bin string, u runAs) (bwrapInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var err error
	info := bwrapInfo{bin: bin}
	if u.dedicated && !hasCapability(unix.CAP_SYS_RESOURCE) {
		if info.prlimit, err = exec.LookPath("prlimit"); err != nil {
			info.prlimit = ""
			info.noRlimits = "keel runs as root without CAP_SYS_RESOURCE and util-linux's prlimit is not installed"
		}
	}
	help, _ := exec.CommandContext(ctx, bin, "--help").CombinedOutput()
	info.size = bytes.Contains(help, []byte("--size"))
	info.disableUserns = bytes.Contains(help, []byte("--disable-userns"))
	info.bindData = bytes.Contains(help, []byte("--ro-bind-data"))

	// The probe sets up everything a real command gets, with a tmpfs in
	// place of the sandbox's directory, so a failure here is the failure
	// every command would have.
	l := Limits{}.WithDefaults()
	lims := rlimits(l, enforcement(l, &cgroups{}, true, u.dedicated, info.noRlimits, ""))
	filter := seccompProgram(false)
	if filter == nil {
		info.noSeccomp = "keel writes seccomp filters for amd64 and arm64 only, not " + runtime.GOARCH
	}
	for {
		inv, err := newInvocation(info, u, l, "", false, filter)
		if err != nil {
			return bwrapInfo{}, &IsolationError{Bwrap: bin, Reason: err.Error(), Hint: namespaceHint, Err: err}
		}
		reason, err := tryInvocation(ctx, info, inv, lims)
		inv.close()
		switch {
		case err == nil:
			return info, nil
		case filter != nil:
			// Without the filter commands are still isolated: try that,
			// and say why the filter is off.
			info.noSeccomp = "bubblewrap cannot load the filter: " + reason
			filter = nil
		default:
			return bwrapInfo{}, &IsolationError{Bwrap: bin, Reason: "bubblewrap cannot isolate commands here: " + reason, Hint: namespaceHint, Err: err}
		}
	}
}

// tryInvocation runs "exit 0" through inv, as every command runs, and
// returns what went wrong, in bwrap's words when it said something.
func tryInvocation(ctx context.Context, info bwrapInfo, inv *invocation, lims map[int]uint64) (string, error) {
	name, args := info.command(lims, "exit 0")
	cmd := exec.CommandContext(ctx, name, args...)
	inv.prepare(cmd, commandEnv(HomeDir, nil))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Start()
	if err == nil {
		inv.started()
		if info.prlimit == "" {
			err = setRlimits(cmd.Process.Pid, lims)
		}
		if err == nil {
			err = inv.mount(cmd.Process.Pid)
		}
		if err == nil {
			err = inv.sendArgs()
		} else {
			killGroup(cmd.Process.Pid)
		}
		if werr := cmd.Wait(); err == nil {
			err = werr
		}
	}
	if err == nil {
		return "", nil
	}
	if reason := strings.TrimSpace(stderr.String()); reason != "" {
		return reason, err
	}
	return err.Error(), err
}

// namespaceHint is what to do when bwrap is there but fails.
const namespaceHint = "bubblewrap needs unprivileged user namespaces: check that user.max_user_namespaces is above 0 " +
	"(and, on Ubuntu 24.04 and later, that AppArmor lets bwrap use them)"

// InsideUID and InsideGID are the user and group a command has inside the
// sandbox, whoever keel runs as: an ordinary user, never root.
const (
	InsideUID = 1000
	InsideGID = 1000
)

// passwd and group replace the host's /etc/passwd and /etc/group inside
// the sandbox, so that whoami works and the host's users stay unknown.
var (
	passwdFile = "root:x:0:0:root:/root:/bin/sh\n" +
		"user:x:" + strconv.Itoa(InsideUID) + ":" + strconv.Itoa(InsideGID) + ":user:" + HomeDir + ":/bin/sh\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	groupFile = "root:x:0:\nuser:x:" + strconv.Itoa(InsideGID) + ":\nnogroup:x:65534:\n"
)

// etcFiles are the only parts of /etc a command sees: enough for the
// dynamic loader, time zones and Debian's alternatives (awk, editors),
// and nothing that describes the host's network, users or secrets.
var etcFiles = []string{
	"/etc/alternatives",
	"/etc/ld.so.cache",
	"/etc/ld.so.conf",
	"/etc/ld.so.conf.d",
	"/etc/nsswitch.conf",
	"/etc/localtime",
	"/etc/ssl/certs", // public CA certificates; /etc/ssl/private stays hidden
}

// systemArgs are the read-only system mounts every command gets.
// Merged-/usr systems have /bin, /lib... as symlinks into /usr; they are
// recreated as the same symlinks, older layouts are bound read-only.
// The slice is shared: clone it before appending.
var systemArgs = sync.OnceValue(func() []string {
	args := []string{"--ro-bind", "/usr", "/usr"}
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
	return args
})

// bwrapOptions are bwrap's options for a command in the sandbox kept in
// dir ("" for a tmpfs, as the probe uses), which keel mounts at
// mountPoint for bwrap when mounted is set (see mountInto). They reach
// bwrap through a pipe (--args), never its command line, which holds only
// the command: so /proc/*/cmdline inside shows no host path.
func bwrapOptions(info bwrapInfo, l Limits, dir string, mounted bool, dataFDs [2]int, seccompFD int) []string {
	args := []string{
		// Every namespace: no network but loopback, a process tree of its
		// own, no host IPC, its own hostname; a user namespace whose only
		// user is InsideUID, mapped to the user bwrap runs as.
		"--unshare-all", "--unshare-user",
		"--uid", strconv.Itoa(InsideUID), "--gid", strconv.Itoa(InsideGID),
		"--die-with-parent",
		// A session of its own: no way to push input into keel's terminal.
		"--new-session",
		"--cap-drop", "ALL",
		"--hostname", "sandbox",
	}
	if seccompFD >= 0 {
		args = append(args, "--seccomp", strconv.Itoa(seccompFD))
	}
	if info.disableUserns {
		// Nested user namespaces would give a command capabilities over
		// namespaces of its own, which is kernel attack surface and no use.
		args = append(args, "--disable-userns")
	}
	args = append(args, systemArgs()...)
	if info.bindData {
		args = append(args,
			"--ro-bind-data", strconv.Itoa(dataFDs[0]), "/etc/passwd",
			"--ro-bind-data", strconv.Itoa(dataFDs[1]), "/etc/group")
	}
	// /proc is the sandbox's own and read-only as a whole: /proc/sys,
	// /proc/sysrq-trigger and the like cannot be written even by a
	// process that somehow had the right.
	args = append(args, "--proc", "/proc", "--remount-ro", "/proc", "--dev", "/dev")
	if info.size {
		args = append(args, "--size", strconv.Itoa(ShmSize))
	}
	args = append(args, "--tmpfs", "/dev/shm")
	if info.size && l.Memory > 0 {
		// /tmp lives in memory: without a memory cgroup to count it, its
		// size is the bound.
		args = append(args, "--size", strconv.FormatInt(l.Memory, 10))
	}
	args = append(args, "--tmpfs", "/tmp")
	switch {
	case dir == "":
		args = append(args, "--tmpfs", HomeDir)
	case mounted:
		args = append(args, "--bind", mountPoint, HomeDir)
	default:
		args = append(args, "--bind", dir, HomeDir)
	}
	// The sandbox's directory, /tmp and /dev/shm are the only places a
	// command can write; the root and /dev are read-only (device nodes
	// such as /dev/null still work).
	return append(args, "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", HomeDir)
}

// command returns the program and arguments that run line: bwrap, whose
// options come from fd 3, behind prlimit when that sets lims.
func (info bwrapInfo) command(lims map[int]uint64, line string) (string, []string) {
	args := []string{"--args", "3", "--", "/bin/sh", "-c", line}
	if info.prlimit == "" {
		return info.bin, args
	}
	return info.prlimit, append(append(prlimitArgs(lims), "--", info.bin), args...)
}

// hasCapability reports whether this process holds the capability c.
func hasCapability(c int) bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return false
	}
	return data[c/32].Effective&(1<<(c%32)) != 0
}
