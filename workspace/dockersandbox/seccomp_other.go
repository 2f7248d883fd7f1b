//go:build !linux

package dockersandbox

// seccompOpt is "" where keel is built for a system other than Linux:
// the engine's profile source builds for Linux only, so containers run
// under the engine's default profile, and [Status] says so.
func seccompOpt(noFallocate bool) string { return "" }

const seccompProfile = "the engine's default seccomp profile (keel's additions need keel built for Linux)"
