package localsandbox

import (
	"encoding/binary"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// A sandbox's commands run under a seccomp filter, handed to bubblewrap
// with --seccomp, which loads it (with no_new_privs) just before it
// starts the command: the syscalls container runtimes refuse by default
// fail there, since each is kernel attack surface and no command needs
// one. Kernel keyrings (keyctl, add_key, request_key), ptrace, mounting
// and the new mount API, kernel modules, kexec, bpf, perf_event_open,
// userfaultfd, new namespaces (unshare, setns, clone with a CLONE_NEW*
// flag), file handles (open_by_handle_at), swap, reboot, the clock,
// quotactl, syslog, acct, fanotify and personality changes other than
// the harmless ones all fail with EPERM; io_uring with ENOSYS, as a
// kernel without it answers, so that programs fall back to plain reads;
// clone3 with ENOSYS too, so that the C library falls back to clone,
// whose flags a classic BPF filter can see (clone3 passes them in
// memory). A syscall of another architecture's ABI (i386 or x32 on
// x86_64) fails with ENOSYS: the filter is written for the native one.
//
// The filter is classic BPF, written here for x86_64 and arm64 (the
// syscall numbers come from golang.org/x/sys for the architecture keel is
// built for, and the filter checks that architecture first); elsewhere
// commands run without one and the status says so. No cgo and no
// libseccomp: the program is some fifty instructions.
//
// When the disk quota is measured rather than enforced by a file system
// of the sandbox's own (see quota.go), fallocate fails with EOPNOTSUPP
// too: it reserves gigabytes in microseconds, far faster than any
// measurement, whereas a program that falls back to writing the bytes
// (posix_fallocate does) writes at the disk's pace and is caught.

// Classic BPF opcodes and seccomp return values.
const (
	bpfLdAbs   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeq     = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJge     = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfJset    = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	bpfRet     = unix.BPF_RET | unix.BPF_K
	retAllow   = unix.SECCOMP_RET_ALLOW
	retErrno   = unix.SECCOMP_RET_ERRNO
	offNr      = 0  // seccomp_data.nr
	offArch    = 4  // seccomp_data.arch
	offArg0Low = 16 // the low 32 bits of seccomp_data.args[0] (little-endian)
)

// cloneNewFlags are clone's flags that make a new namespace.
const cloneNewFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// allowedPersonalities are the personality(2) arguments container
// runtimes let through: the default, querying (0xffffffff), and the
// flags some programs set for themselves (UNAME26, ADDR_NO_RANDOMIZE...
// are not among them: they weaken the process's own protections).
var allowedPersonalities = []uint32{0x0, 0x8, 0x20000, 0x20008, 0xffffffff}

// BlockedSyscalls is how many syscalls the seccomp filter refuses
// outright (personality and clone are refused for some arguments only,
// and are not counted), 0 on architectures keel writes no filter for.
func BlockedSyscalls() int {
	if !seccompArch {
		return 0
	}
	return len(blockedSyscalls) + len(archBlocked) + len(enosysSyscalls)
}

// seccompProgram returns the filter, as the array of struct sock_filter
// that bwrap reads from --seccomp's descriptor; nil where keel writes
// none. noFallocate makes fallocate fail with EOPNOTSUPP.
func seccompProgram(noFallocate bool) []byte {
	if !seccompArch {
		return nil
	}
	if noFallocate {
		return programs.measured()
	}
	return programs.enforced()
}

var programs = struct {
	measured, enforced func() []byte
}{
	measured: sync.OnceValue(func() []byte { return buildFilter(true).bytes() }),
	enforced: sync.OnceValue(func() []byte { return buildFilter(false).bytes() }),
}

// bpfProgram is a classic BPF program under construction: jumps name
// labels, resolved by bytes.
type bpfProgram struct {
	insns  []bpfInsn
	labels map[string]int
}

type bpfInsn struct {
	code   uint16
	k      uint32
	jt, jf string // labels; "" is the next instruction
}

func (p *bpfProgram) add(code uint16, k uint32, jt, jf string) {
	p.insns = append(p.insns, bpfInsn{code: code, k: k, jt: jt, jf: jf})
}

func (p *bpfProgram) label(name string) { p.labels[name] = len(p.insns) }

// bytes resolves the labels and encodes the program in the host's byte
// order, as struct sock_filter {u16 code; u8 jt, jf; u32 k}.
func (p *bpfProgram) bytes() []byte {
	out := make([]byte, 0, 8*len(p.insns))
	offset := func(at int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := p.labels[label]
		if !ok || to <= at || to-at-1 > 255 {
			panic(fmt.Sprintf("localsandbox: seccomp filter: jump from %d to %q (%d) cannot be encoded", at, label, to))
		}
		return uint8(to - at - 1)
	}
	for i, in := range p.insns {
		out = binary.NativeEndian.AppendUint16(out, in.code)
		out = append(out, offset(i, in.jt), offset(i, in.jf))
		out = binary.NativeEndian.AppendUint32(out, in.k)
	}
	return out
}

// buildFilter writes the filter described at the top of this file.
func buildFilter(noFallocate bool) *bpfProgram {
	p := &bpfProgram{labels: make(map[string]int)}
	p.add(bpfLdAbs, offArch, "", "")
	p.add(bpfJeq, auditArch, "", "enosys")
	p.add(bpfLdAbs, offNr, "", "")
	if x32Bit != 0 {
		p.add(bpfJge, x32Bit, "enosys", "")
	}
	for _, nr := range append(append([]uint32(nil), blockedSyscalls...), archBlocked...) {
		p.add(bpfJeq, nr, "eperm", "")
	}
	for _, nr := range enosysSyscalls {
		p.add(bpfJeq, nr, "enosys", "")
	}
	if noFallocate {
		p.add(bpfJeq, unix.SYS_FALLOCATE, "eopnotsupp", "")
	}
	p.add(bpfJeq, unix.SYS_PERSONALITY, "personality", "")
	p.add(bpfJeq, unix.SYS_CLONE, "clone", "")
	p.add(bpfRet, retAllow, "", "")

	p.label("personality")
	p.add(bpfLdAbs, offArg0Low, "", "")
	for _, v := range allowedPersonalities {
		p.add(bpfJeq, v, "allow", "")
	}
	p.add(bpfRet, retErrno|uint32(unix.EPERM), "", "")

	p.label("clone")
	p.add(bpfLdAbs, offArg0Low, "", "")
	p.add(bpfJset, cloneNewFlags, "eperm", "")

	p.label("allow")
	p.add(bpfRet, retAllow, "", "")
	p.label("eperm")
	p.add(bpfRet, retErrno|uint32(unix.EPERM), "", "")
	p.label("enosys")
	p.add(bpfRet, retErrno|uint32(unix.ENOSYS), "", "")
	p.label("eopnotsupp")
	p.add(bpfRet, retErrno|uint32(unix.EOPNOTSUPP), "", "")
	return p
}
