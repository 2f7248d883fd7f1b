//go:build !unix

package mcpclient

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// signalGroup kills p: without process groups, what p started is left
// to p.
func signalGroup(p *os.Process, _ syscall.Signal) { _ = p.Kill() }
