//go:build !unix

package convert

import "os/exec"

// inGroup leaves cmd as it is: without process groups, the context kills
// the program it started.
func inGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {}
