//go:build unix

package mcpclient

import (
	"os"
	"syscall"
)

// signalGroup sends sig to the process group p leads, which ownGroup
// made, and to p itself should the group be gone.
func signalGroup(p *os.Process, sig syscall.Signal) {
	if err := syscall.Kill(-p.Pid, sig); err != nil {
		_ = p.Signal(sig)
	}
}
