package localsandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// invocation is the pipes and settings of one bwrap run: its arguments
// and the files it copies in travel through pipes it inherits as fds 3,
// 4 and 5, and the seccomp filter, if any, as fd 6.
type invocation struct {
	user runAs
	// mountDir is the sandbox's directory when keel mounts it for bwrap
	// (see mountInto); "" when bwrap binds it by its path.
	mountDir string
	opts     []string
	argsR    *os.File
	argsW    *os.File
	dataR    [2]*os.File
	seccompR *os.File // nil without a filter
}

// newInvocation makes the pipes for running a command in dir as user u,
// with dir mounted by keel for bwrap when mounted is set. The data files
// sit in their pipes before bwrap starts; the options are written once it
// runs (see sendArgs).
func newInvocation(info bwrapInfo, u runAs, l Limits, dir string, mounted bool, filter []byte) (*invocation, error) {
	inv := &invocation{user: u}
	if mounted {
		inv.mountDir = dir
	}
	var err error
	if inv.argsR, inv.argsW, err = os.Pipe(); err != nil {
		return nil, err
	}
	for i, content := range []string{passwdFile, groupFile} {
		r, w, err := os.Pipe()
		if err != nil {
			inv.close()
			return nil, err
		}
		inv.dataR[i] = r
		_, err = w.WriteString(content)
		w.Close()
		if err != nil {
			inv.close()
			return nil, err
		}
	}
	seccompFD := -1
	if filter != nil {
		r, w, err := os.Pipe()
		if err != nil {
			inv.close()
			return nil, err
		}
		inv.seccompR, seccompFD = r, 6
		// A few hundred bytes: the pipe's buffer holds them all.
		_, err = w.Write(filter)
		w.Close()
		if err != nil {
			inv.close()
			return nil, err
		}
	}
	inv.opts = bwrapOptions(info, l, dir, mounted, [2]int{4, 5}, seccompFD)
	return inv, nil
}

// prepare sets cmd up to run bwrap as the invocation's user, with its
// pipes and env.
func (inv *invocation) prepare(cmd *exec.Cmd, env []string) {
	cmd.Env = env
	// bwrap starts in / so that no directory of keel's is needed.
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{inv.argsR, inv.dataR[0], inv.dataR[1]}
	if inv.seccompR != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, inv.seccompR)
	}
	cmd.SysProcAttr = inv.user.sysProcAttr()
	if inv.mountDir != "" {
		// Unshared while the child is still root, before it becomes the
		// dedicated user: the namespace is root's, so keel may mount in
		// it, and the child cannot. Go makes its mounts private.
		cmd.SysProcAttr.Unshareflags = syscall.CLONE_NEWNS
	}
}

// mount mounts the sandbox for the bwrap process pid, waiting for its
// options, when keel does that (see mountInto).
func (inv *invocation) mount(pid int) error {
	if inv.mountDir == "" {
		return nil
	}
	return mountInto(pid, inv.mountDir)
}

// started closes the pipe ends the child now holds.
func (inv *invocation) started() {
	for _, f := range []*os.File{inv.argsR, inv.dataR[0], inv.dataR[1], inv.seccompR} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// sendArgs writes bwrap's options, NUL-separated, and closes the pipe:
// bwrap reads them all before it does anything else, so whatever was set
// on its process before (cgroups, resource limits) holds for everything
// it starts.
func (inv *invocation) sendArgs() error {
	defer inv.argsW.Close()
	var b strings.Builder
	for _, a := range inv.opts {
		b.WriteString(a)
		b.WriteByte(0)
	}
	if _, err := inv.argsW.WriteString(b.String()); err != nil {
		return fmt.Errorf("send bwrap its arguments: %w", err)
	}
	return nil
}

// close releases every pipe end still open.
func (inv *invocation) close() {
	for _, f := range []*os.File{inv.argsR, inv.argsW, inv.dataR[0], inv.dataR[1], inv.seccompR} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// sysProcAttr starts a command in a process group of its own (one signal
// ends it and everything it started), as the user u.
func (u runAs) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if u.dedicated {
		attr.Credential = &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid), Groups: []uint32{}}
	}
	return attr
}
