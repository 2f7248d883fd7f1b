package localsandbox

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// enforcement decides how each of l's limits is enforced for a sandbox
// whose commands run isolated (or not), as the dedicated user (or as
// keel's own).
// noRlimits, when not "", says why no resource limit can be set; noFS,
// when not "", why the disk quota is measured rather than enforced by a
// file system of the sandbox's own.
func enforcement(l Limits, cg *cgroups, isolated, dedicated bool, noRlimits, noFS string) Enforcement {
	e := Enforcement{
		Processes: cg.mechanism(cg.pids),
		Memory:    cg.mechanism(cg.memory),
		FileSize:  Rlimit,
		Disk:      OwnFilesystem,
		CPUTime:   Rlimit,
	}
	var whys []string
	if noFS != "" {
		e.Disk = QuotaCheck
		if dedicated && l.Disk > 0 && noFS != "OwnFilesystem is not set" {
			whys = append(whys, "disk measured: "+noFS)
		}
	}
	if cg.why != "" && isolated {
		whys = append(whys, "no cgroup: "+cg.why)
	}
	e.Memory = cmp.Or(e.Memory, Rlimit)
	if e.Processes == "" {
		if dedicated {
			// RLIMIT_NPROC counts the processes of a user, here the
			// dedicated one: it is shared by all the sandboxes.
			e.Processes = Rlimit
			whys = append(whys, "the process limit is shared by all sandboxes (it counts the processes of their user)")
		} else {
			e.Processes = NotEnforced
			whys = append(whys, fmt.Sprintf("RLIMIT_NPROC would count every process of uid %d, keel's own user", os.Getuid()))
		}
	}
	if noRlimits != "" {
		for _, m := range []*Mechanism{&e.Processes, &e.Memory, &e.FileSize, &e.CPUTime} {
			if *m == Rlimit {
				*m = NotEnforced
			}
		}
		whys = append(whys, "no resource limit can be set: "+noRlimits)
	}
	if !isolated {
		e.Processes, e.Memory, e.FileSize, e.CPUTime = NotEnforced, NotEnforced, NotEnforced, NotEnforced
		whys = []string{"commands run unisolated"}
	}
	for _, f := range []struct {
		off bool
		m   *Mechanism
	}{{l.Processes < 0, &e.Processes}, {l.Memory < 0, &e.Memory}, {l.FileSize < 0, &e.FileSize}, {l.Disk < 0, &e.Disk}, {l.CPUTime < 0, &e.CPUTime}} {
		if f.off {
			*f.m = Unlimited
		}
	}
	e.Why = strings.Join(whys, "; ")
	return e
}

// rlimits returns the resource limits a command's first process gets;
// everything it starts inherits them. Core dumps are off: a crashing
// program would otherwise write its memory into the sandbox.
func rlimits(l Limits, e Enforcement) map[int]uint64 {
	out := map[int]uint64{unix.RLIMIT_CORE: 0}
	if e.Processes == Rlimit {
		out[unix.RLIMIT_NPROC] = uint64(l.Processes)
	}
	if e.Memory == Rlimit {
		// RLIMIT_DATA counts the private writable memory a process maps,
		// which is what an allocation takes. RLIMIT_AS would also count
		// the address space that runtimes such as V8 and the JVM reserve
		// without using, and make them fail to start.
		out[unix.RLIMIT_DATA] = uint64(l.Memory)
	}
	if e.FileSize == Rlimit {
		out[unix.RLIMIT_FSIZE] = uint64(l.FileSize)
	}
	if e.CPUTime == Rlimit {
		out[unix.RLIMIT_CPU] = l.cpuSeconds()
	}
	return out
}

// prlimitArgs are util-linux prlimit's options setting lims.
func prlimitArgs(lims map[int]uint64) []string {
	names := map[int]string{unix.RLIMIT_CORE: "--core", unix.RLIMIT_NPROC: "--nproc", unix.RLIMIT_DATA: "--data",
		unix.RLIMIT_FSIZE: "--fsize", unix.RLIMIT_CPU: "--cpu"}
	var out []string
	for _, res := range []int{unix.RLIMIT_CORE, unix.RLIMIT_NPROC, unix.RLIMIT_DATA, unix.RLIMIT_FSIZE, unix.RLIMIT_CPU} {
		v, ok := lims[res]
		if !ok {
			continue
		}
		hard := v
		if res == unix.RLIMIT_CPU {
			hard = v + 1
		}
		out = append(out, fmt.Sprintf("%s=%d:%d", names[res], v, hard))
	}
	return out
}

// setRlimits sets lims on the process pid. The hard CPU limit is one
// second above the soft one, so that a process gets SIGXCPU (and may say
// so) before SIGKILL.
func setRlimits(pid int, lims map[int]uint64) error {
	for res, v := range lims {
		lim := unix.Rlimit{Cur: v, Max: v}
		if res == unix.RLIMIT_CPU {
			lim.Max = v + 1
		}
		if err := unix.Prlimit(pid, res, &lim, nil); err != nil {
			return fmt.Errorf("set resource limit %d: %w", res, err)
		}
	}
	return nil
}
