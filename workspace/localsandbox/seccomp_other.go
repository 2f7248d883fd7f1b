//go:build !amd64 && !arm64

package localsandbox

// keel writes seccomp filters for x86_64 and arm64 only.
const (
	seccompArch = false
	auditArch   = 0
	x32Bit      = 0
)

var (
	archBlocked     []uint32
	blockedSyscalls []uint32
	enosysSyscalls  []uint32
)
