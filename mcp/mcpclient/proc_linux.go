package mcpclient

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that stopping the
// server stops whatever it started too (npx starts node, node may start
// more), and asks Linux to kill it if keel's thread that started it dies
// first: a keel that is killed leaves no server behind.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
