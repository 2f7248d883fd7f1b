//go:build unix

package convert

import (
	"os/exec"
	"syscall"
)

// inGroup runs cmd in a process group of its own, killed whole when its
// context ends: soffice starts soffice.bin, which must not outlive it.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills what is left of cmd's process group once cmd ended.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // ESRCH when none is left
	}
}
