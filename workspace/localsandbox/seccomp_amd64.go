package localsandbox

import "golang.org/x/sys/unix"

// The seccomp filter's architecture: x86_64.
const (
	seccompArch = true
	auditArch   = unix.AUDIT_ARCH_X86_64
	// x32Bit marks the syscalls of the x32 ABI, which share x86_64's
	// architecture number: the filter refuses them all.
	x32Bit = 0x40000000
)

// archBlocked are x86_64's own syscalls the filter refuses: port I/O.
var archBlocked = []uint32{unix.SYS_IOPL, unix.SYS_IOPERM}
