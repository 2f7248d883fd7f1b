package localsandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The filter is checked by running it: golang.org/x/net/bpf's virtual
// machine executes the same classic BPF the kernel does. It loads words
// big-endian where seccomp loads them in the host's order, so the test
// writes each word of struct seccomp_data big-endian: the filter sees
// the values it would see in the kernel.
func TestSeccompFilterDecides(t *testing.T) {
	if !seccompArch {
		t.Skip("no seccomp filter on this architecture")
	}
	data := func(arch, nr, arg0 uint32) []byte {
		b := make([]byte, 64)
		binary.BigEndian.PutUint32(b[offNr:], nr)
		binary.BigEndian.PutUint32(b[offArch:], arch)
		binary.BigEndian.PutUint32(b[offArg0Low:], arg0)
		return b
	}
	const (
		allow      = retAllow
		eperm      = retErrno | uint32(unix.EPERM)
		enosys     = retErrno | uint32(unix.ENOSYS)
		eopnotsupp = retErrno | uint32(unix.EOPNOTSUPP)
	)
	type call struct {
		name           string
		arch, nr, arg0 uint32
		measured, own  uint32 // the answer with a measured quota, with a file system of its own
	}
	calls := []call{
		{"read", auditArch, unix.SYS_READ, 0, allow, allow},
		{"keyctl", auditArch, unix.SYS_KEYCTL, 0, eperm, eperm},
		{"ptrace", auditArch, unix.SYS_PTRACE, 0, eperm, eperm},
		{"mount", auditArch, unix.SYS_MOUNT, 0, eperm, eperm},
		{"bpf", auditArch, unix.SYS_BPF, 0, eperm, eperm},
		{"io_uring_setup", auditArch, unix.SYS_IO_URING_SETUP, 0, enosys, enosys},
		{"clone3", auditArch, unix.SYS_CLONE3, 0, enosys, enosys},
		{"fallocate", auditArch, unix.SYS_FALLOCATE, 0, eopnotsupp, allow},
		{"clone of a thread", auditArch, unix.SYS_CLONE, unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND, allow, allow},
		{"clone of a user namespace", auditArch, unix.SYS_CLONE, unix.CLONE_NEWUSER, eperm, eperm},
		{"clone of a mount namespace", auditArch, unix.SYS_CLONE, unix.CLONE_NEWNS | 17, eperm, eperm},
		{"personality query", auditArch, unix.SYS_PERSONALITY, 0xffffffff, allow, allow},
		{"personality BSD", auditArch, unix.SYS_PERSONALITY, 6, eperm, eperm},
		{"another architecture", auditArch ^ 1, unix.SYS_READ, 0, enosys, enosys},
	}
	if x32Bit != 0 {
		calls = append(calls, call{"an x32 syscall", auditArch, x32Bit | unix.SYS_READ, 0, enosys, enosys})
	}
	for _, measured := range []bool{true, false} {
		raw := seccompProgram(measured)
		var insns []bpf.Instruction
		for i := 0; i+8 <= len(raw); i += 8 {
			insns = append(insns, bpf.RawInstruction{
				Op: binary.NativeEndian.Uint16(raw[i:]), Jt: raw[i+2], Jf: raw[i+3], K: binary.NativeEndian.Uint32(raw[i+4:]),
			}.Disassemble())
		}
		vm, err := bpf.NewVM(insns)
		if err != nil {
			t.Fatalf("Got(the filter) refused by the BPF machine: %v; want a valid program", err)
		}
		for _, c := range calls {
			got, err := vm.Run(data(c.arch, c.nr, c.arg0))
			want := c.own
			if measured {
				want = c.measured
			}
			if err != nil || uint32(got) != want {
				t.Errorf("Got(filter, measured %v, %s) = %#x, %v; want %#x", measured, c.name, uint32(got), err, want)
			}
		}
	}
}
