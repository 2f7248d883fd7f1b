package localsandbox

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/keel-go/keel/workspace/internal/diskquota"
)

// Defaults of [Limits].
const (
	// DefaultProcesses is how many processes (threads count as processes)
	// a sandbox's commands may have at once: enough for builds and
	// pipelines, far too few for a fork bomb to hurt the host.
	DefaultProcesses = 256
	// DefaultMemory is how much memory a sandbox's commands may use: 1 GiB.
	DefaultMemory = 1 << 30
	// DefaultFileSize is the largest file a command may write: 1 GiB.
	DefaultFileSize = 1 << 30
	// DefaultDisk is how much a sandbox's directory may hold: 2 GiB.
	DefaultDisk = 2 << 30
	// DefaultFiles is how many files (directories and links included) a
	// sandbox may hold: enough for a checkout of a large project and its
	// dependencies, few enough that measuring them all stays well under a
	// second.
	DefaultFiles = 100_000
	// DefaultCPUTime is the CPU time each process of a command may use:
	// 10 minutes, the longest time limit the run_command tool accepts, so
	// that a single-threaded command always reaches its own time limit
	// first. What it stops is a process burning several cores at once (it
	// reaches 10 CPU minutes in 2.5 minutes on 4 cores), which the wall
	// clock alone would let run for the whole limit.
	DefaultCPUTime = 10 * time.Minute
)

// ShmSize is the size of the /dev/shm tmpfs a command sees: 64 MiB, as
// container engines give by default.
const ShmSize = 64 << 20

// Limits bound what one sandbox's commands may use. A zero field means its
// default; a negative one turns that limit off. The zero value is the
// defaults.
type Limits struct {
	// Processes is how many processes the sandbox's commands may have at
	// once, threads included; 0 means [DefaultProcesses].
	Processes int
	// Memory is how many bytes of memory the sandbox's commands may use;
	// 0 means [DefaultMemory]. With a cgroup it counts the whole sandbox
	// (its /tmp included); with rlimits it bounds each process's data and
	// /tmp is a tmpfs of this size.
	Memory int64
	// FileSize is the largest file, in bytes, a command may write; 0 means
	// [DefaultFileSize]. A write beyond it fails (the writer gets SIGXFSZ).
	FileSize int64
	// Disk is how many bytes the sandbox's directory may hold; 0 means
	// [DefaultDisk]. It is enforced by a file system of the sandbox's own
	// where the host allows, else measured around and during each command
	// and before each write: see [workspace.ErrQuotaExceeded].
	Disk int64
	// Files is how many files, directories and links the sandbox may
	// hold; 0 means [DefaultFiles]. A file system of the sandbox's own has
	// that many inodes; a measured sandbox holding more ends its command,
	// as going over the disk quota does.
	Files int64
	// CPUTime is the CPU time each process of a command may use; 0 means
	// [DefaultCPUTime]. It is counted in whole seconds, rounded up; a
	// process over it gets SIGXCPU, and SIGKILL a second later.
	CPUTime time.Duration
}

// WithDefaults returns l with each zero field at its default, as a
// sandbox applies it (dockersandbox's too).
func (l Limits) WithDefaults() Limits {
	l.Processes = cmp.Or(l.Processes, DefaultProcesses)
	l.Memory = cmp.Or(l.Memory, DefaultMemory)
	l.FileSize = cmp.Or(l.FileSize, DefaultFileSize)
	l.Disk = cmp.Or(l.Disk, DefaultDisk)
	l.Files = cmp.Or(l.Files, DefaultFiles)
	l.CPUTime = cmp.Or(l.CPUTime, DefaultCPUTime)
	return l
}

// cpuSeconds is CPUTime in whole seconds, rounded up.
func (l Limits) cpuSeconds() uint64 {
	return uint64((l.CPUTime + time.Second - 1) / time.Second)
}

// Mechanism names how a limit is enforced.
type Mechanism string

// The mechanisms a limit can be enforced by.
const (
	// CgroupV2 is a cgroup of the unified hierarchy made for the sandbox.
	CgroupV2 Mechanism = "cgroup v2"
	// CgroupV1 is a cgroup of the controller's own (v1) hierarchy.
	CgroupV1 Mechanism = "cgroup v1"
	// Rlimit is a resource limit (setrlimit) on each command's processes.
	Rlimit Mechanism = "rlimit"
	// QuotaCheck is keel measuring the directory around and during each
	// command and before each write.
	QuotaCheck Mechanism = "measured around and during each command and before each write"
	// OwnFilesystem is a file system of the sandbox's own, the size of
	// its quota: a loop-mounted ext4 image.
	OwnFilesystem Mechanism = "a file system of its own: loop-mounted ext4 image"
	// Unlimited is a limit turned off by its setting.
	Unlimited Mechanism = "off"
	// NotEnforced is a limit that nothing here can enforce.
	NotEnforced Mechanism = "NOT ENFORCED"
)

// Enforcement says how each limit of a sandbox is enforced here.
type Enforcement struct {
	Processes, Memory, FileSize, Disk, CPUTime Mechanism
	// Why says why no cgroup is used, or why a limit is not enforced;
	// "" when every limit has its best mechanism.
	Why string
}

// unenforced lists the limits nothing enforces.
func (e Enforcement) unenforced() []string {
	var out []string
	for _, f := range []struct {
		name string
		m    Mechanism
	}{{"processes", e.Processes}, {"memory", e.Memory}, {"file size", e.FileSize}, {"disk", e.Disk}, {"CPU time", e.CPUTime}} {
		if f.m == NotEnforced {
			out = append(out, f.name)
		}
	}
	return out
}

// describe writes each limit with its mechanism, such as
// "256 processes (cgroup v1), 1 GiB memory (cgroup v1), ...".
func describe(l Limits, e Enforcement) string {
	parts := []string{
		limitText(l.Processes < 0, "processes", fmt.Sprintf("%d processes", l.Processes), e.Processes),
		limitText(l.Memory < 0, "memory", Size(l.Memory)+" memory", e.Memory),
		limitText(l.FileSize < 0, "file size", Size(l.FileSize)+" per file", e.FileSize),
		limitText(l.Disk < 0, "disk", fmt.Sprintf("%s disk and %d files", Size(l.Disk), l.Files), e.Disk),
		limitText(l.CPUTime < 0, "CPU time", l.CPUTime.String()+" CPU per process", e.CPUTime),
	}
	return strings.Join(parts, ", ")
}

func limitText(off bool, name, value string, m Mechanism) string {
	if off {
		return "no limit on " + name
	}
	return value + " (" + string(m) + ")"
}

// Size writes a byte count for people in the largest binary unit it
// reaches: "1 GiB" or "512 MiB" when exact, else "1.5 GiB", "9.5 MiB",
// "17 B".
func Size(n int64) string { return diskquota.Size(n) }
