// Command seccompprobe calls each syscall a sandbox's seccomp filter must
// refuse, with arguments that do nothing, and prints one line per call:
// its name and the errno it got ("ok" when it succeeded). The conformance
// suite builds it, runs it inside a sandbox, and checks each answer.
//
// Where the kernel itself would refuse a call made without privileges
// with EPERM (mount, init_module...), a refusal cannot be told from the
// filter's; the other calls are chosen so that the kernel, when it lets
// them through, answers with another error (EBADF, EFAULT, EINVAL...), so
// that their EPERM or ENOSYS shows the filter at work. Run outside a
// sandbox, the probe shows that difference.
package main

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

type call struct {
	name string
	nr   uintptr
	args [6]uintptr
}

func main() {
	const (
		cloneThread = unix.CLONE_THREAD // without CLONE_SIGHAND: EINVAL from the kernel
		ufdUserOnly = 1                 // UFFD_USER_MODE_ONLY
		badFlag     = 0x40000000        // no such flag
		perBSD      = 6                 // a personality no runtime allows
		badRequest  = ^uintptr(0)       // no such ptrace request
		keyctlBad   = 0xffff            // no such keyctl operation
		badFD       = ^uintptr(0)       // -1
		cloneNewUTS = unix.CLONE_NEWUTS // a new namespace
		nothing     = uintptr(0)
	)
	pid := uintptr(os.Getpid())
	calls := []call{
		{"keyctl", unix.SYS_KEYCTL, [6]uintptr{keyctlBad}},
		{"add_key", unix.SYS_ADD_KEY, [6]uintptr{nothing}},
		{"request_key", unix.SYS_REQUEST_KEY, [6]uintptr{nothing}},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, [6]uintptr{0, nothing}},
		{"io_uring_enter", unix.SYS_IO_URING_ENTER, [6]uintptr{badFD}},
		{"io_uring_register", unix.SYS_IO_URING_REGISTER, [6]uintptr{badFD}},
		{"ptrace", unix.SYS_PTRACE, [6]uintptr{badRequest, pid}},
		{"mount", unix.SYS_MOUNT, [6]uintptr{nothing, nothing, nothing}},
		{"umount2", unix.SYS_UMOUNT2, [6]uintptr{nothing}},
		{"pivot_root", unix.SYS_PIVOT_ROOT, [6]uintptr{nothing, nothing}},
		{"open_tree", unix.SYS_OPEN_TREE, [6]uintptr{badFD, nothing}},
		{"fsconfig", unix.SYS_FSCONFIG, [6]uintptr{badFD}},
		{"fsmount", unix.SYS_FSMOUNT, [6]uintptr{badFD}},
		{"init_module", unix.SYS_INIT_MODULE, [6]uintptr{nothing}},
		{"finit_module", unix.SYS_FINIT_MODULE, [6]uintptr{badFD}},
		{"delete_module", unix.SYS_DELETE_MODULE, [6]uintptr{nothing}},
		{"kexec_load", unix.SYS_KEXEC_LOAD, [6]uintptr{nothing}},
		{"bpf", unix.SYS_BPF, [6]uintptr{0xffff}},
		{"perf_event_open", unix.SYS_PERF_EVENT_OPEN, [6]uintptr{nothing, 0, ^uintptr(0), badFD}},
		{"userfaultfd", unix.SYS_USERFAULTFD, [6]uintptr{ufdUserOnly | badFlag}},
		{"unshare", unix.SYS_UNSHARE, [6]uintptr{0}},
		{"setns", unix.SYS_SETNS, [6]uintptr{badFD, 0}},
		{"clone_newns", unix.SYS_CLONE, [6]uintptr{cloneNewUTS | cloneThread}},
		{"clone3", unix.SYS_CLONE3, [6]uintptr{nothing, 0}},
		{"personality", unix.SYS_PERSONALITY, [6]uintptr{perBSD}},
		{"settimeofday", unix.SYS_SETTIMEOFDAY, [6]uintptr{nothing, nothing}},
		{"name_to_handle_at", unix.SYS_NAME_TO_HANDLE_AT, [6]uintptr{badFD, nothing}},
		// Controls: calls every sandbox lets through.
		{"clone_plain", unix.SYS_CLONE, [6]uintptr{cloneThread}},
		{"personality_query", unix.SYS_PERSONALITY, [6]uintptr{0xffffffff}},
		{"getpid", unix.SYS_GETPID, [6]uintptr{}},
	}
	for _, c := range calls {
		_, _, errno := syscall.Syscall6(c.nr, c.args[0], c.args[1], c.args[2], c.args[3], c.args[4], c.args[5])
		if errno == 0 {
			fmt.Println(c.name, "ok")
			continue
		}
		fmt.Println(c.name, unix.ErrnoName(errno))
	}
}
