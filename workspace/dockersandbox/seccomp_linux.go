package dockersandbox

import (
	"encoding/json"
	"slices"

	"github.com/moby/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// Containers run under the engine's default seccomp profile with keel's
// additions, so that a command in a Docker sandbox meets the same refusals
// as one in a local sandbox (see localsandbox's seccomp filter): the
// default profile, an allow list, already refuses most of what keel
// refuses (new mounts, kernel modules, kexec, bpf, new namespaces...) to a
// container without capabilities, but lets through ptrace (since kernel
// 4.8), name_to_handle_at, and, in engines before 25.0, io_uring.
// keel's profile is the default one (taken from github.com/moby/profiles,
// the engine's own source of it, so that it follows the engine's changes)
// with every syscall keel refuses taken out of its allow rules (then the
// profile's default action, EPERM, refuses it), io_uring refused with
// ENOSYS (as a kernel without it answers, so that programs fall back to
// plain reads), and, when the disk quota is measured, fallocate refused
// with ENOSPC: it reserves gigabytes in microseconds, far faster than any
// measurement. Not EOPNOTSUPP, as the local sandbox answers: on that,
// glibc's posix_fallocate (which busybox's fallocate calls) falls back to
// writing one byte per block, which allocates as fast as the disk takes
// small writes, far within one measurement of a container (an exec, a
// second on a loaded machine); on ENOSPC it gives up. The profile goes to
// the engine whole, in HostConfig.SecurityOpt ("seccomp=" and its JSON),
// as docker run --security-opt seccomp=FILE sends it.

// refusedSyscalls fail with EPERM in a container, as in a local sandbox.
var refusedSyscalls = []string{
	"keyctl", "add_key", "request_key",
	"ptrace",
	"mount", "umount", "umount2", "pivot_root",
	"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"init_module", "finit_module", "delete_module",
	"kexec_load", "kexec_file_load",
	"bpf", "perf_event_open", "userfaultfd",
	"unshare", "setns",
	"open_by_handle_at", "name_to_handle_at",
	"swapon", "swapoff", "reboot",
	"settimeofday", "clock_settime", "clock_settime64", "stime",
	"quotactl", "syslog", "acct",
	"fanotify_init", "lookup_dcookie",
}

// enosysSyscalls fail with ENOSYS, as on a kernel without them.
var enosysSyscalls = []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}

// seccompOpt returns the SecurityOpt entry of keel's profile; noFallocate
// refuses fallocate too.
func seccompOpt(noFallocate bool) string {
	p := seccomp.DefaultProfile()
	drop := append([]string(nil), refusedSyscalls...)
	drop = append(drop, enosysSyscalls...)
	if noFallocate {
		drop = append(drop, "fallocate")
	}
	kept := p.Syscalls[:0]
	for _, sc := range p.Syscalls {
		if sc.Action == specs.ActAllow {
			sc.Names = slices.DeleteFunc(sc.Names, func(n string) bool { return slices.Contains(drop, n) })
			if sc.Name != "" && slices.Contains(drop, sc.Name) {
				sc.Name = ""
			}
			if len(sc.Names) == 0 && sc.Name == "" {
				continue
			}
		}
		kept = append(kept, sc)
	}
	errno := func(names []string, e unix.Errno) *seccomp.Syscall {
		n := uint(e)
		return &seccomp.Syscall{LinuxSyscall: specs.LinuxSyscall{Names: names, Action: specs.ActErrno, ErrnoRet: &n}}
	}
	kept = append(kept, errno(refusedSyscalls, unix.EPERM), errno(enosysSyscalls, unix.ENOSYS))
	if noFallocate {
		kept = append(kept, errno([]string{"fallocate"}, unix.ENOSPC))
	}
	p.Syscalls = kept
	b, err := json.Marshal(p)
	if err != nil {
		// A struct of strings and numbers always marshals.
		panic("dockersandbox: seccomp profile: " + err.Error())
	}
	return "seccomp=" + string(b)
}

// seccompProfile says which seccomp profile containers run under.
const seccompProfile = "the engine's default seccomp profile with keel's additions"
