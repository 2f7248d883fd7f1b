package localsandbox

import "golang.org/x/sys/unix"

// The seccomp filter's architecture: arm64, which has a single ABI.
const (
	seccompArch = true
	auditArch   = unix.AUDIT_ARCH_AARCH64
	x32Bit      = 0
)

// archBlocked are arm64's own syscalls the filter refuses: none.
var archBlocked []uint32
