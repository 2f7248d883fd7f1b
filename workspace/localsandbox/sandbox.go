package localsandbox

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/keel-go/keel/workspace"
)

// HomeDir is where an isolated sandbox's directory appears to its
// commands, and so the working directory upload notes name.
const HomeDir = "/home/user"

// Defaults of [Options].
const (
	// DefaultCommandTimeout is how long a command may run when neither it
	// nor the Options set a limit.
	DefaultCommandTimeout = 60 * time.Second
	// DefaultMaxOutput is how many bytes of stdout, and of stderr, a
	// command's result keeps when the Options set no cap: 1 MiB.
	DefaultMaxOutput = 1 << 20
	// DefaultUID and DefaultGID are the host user and group that run
	// commands, and own the sandboxes' files, when keel runs as root. They
	// lie above the ids that Debian, systemd (its container range ends at
	// 1879048191) and sssd's automatic id mapping (up to 2000200000) hand
	// out, and below 2^31 so that programs keeping ids in signed 32-bit
	// integers cope. No account needs to exist for them.
	DefaultUID = 2100000000
	DefaultGID = 2100000000
)

// Options configure a [Sandbox]. The zero value is ready to use.
type Options struct {
	// AllowUnisolated lets the sandbox run commands with plain sh -c in its
	// directory when bubblewrap cannot run. Commands then see the whole
	// machine, its network and the directory's real path, and only the
	// disk quota applies to them. Without it, such a sandbox keeps its
	// files but its commands are off: RunCommand returns an
	// [*IsolationError].
	AllowUnisolated bool
	// CommandTimeout ends a command that runs longer; 0 means
	// [DefaultCommandTimeout]. A command's own Timeout wins.
	CommandTimeout time.Duration
	// MaxOutput is how many bytes of stdout, and of stderr, a command's
	// result keeps; the rest is read and dropped. 0 means [DefaultMaxOutput].
	MaxOutput int
	// Limits bound what the sandbox's commands may use; the zero value is
	// the defaults (see [Limits]).
	Limits Limits
	// OwnFilesystem gives each sandbox a file system of its own, the size
	// of its disk quota, where the host allows (keel runs as root with
	// CAP_SYS_ADMIN, loop devices and mkfs.ext4): a loop-mounted ext4
	// image beside its directory, so that the kernel enforces the quota
	// and nothing is measured. The mount outlives keel (see [Unmount]):
	// it is off by default, so that a directory keel used can always be
	// removed with rm -rf. Without it, or where the host does not allow
	// it, the quota is measured.
	OwnFilesystem bool
	// UID and GID are the host user and group that run commands and own
	// the sandbox's files when keel runs as root; 0 means [DefaultUID] and
	// [DefaultGID]. When keel does not run as root, commands run as keel's
	// own user. Inside the sandbox they are always [InsideUID] and
	// [InsideGID].
	UID, GID int
	// Env holds extra "KEY=value" variables for commands. The host's own
	// environment never reaches a command (it may hold API keys); commands
	// get PATH, HOME, TMPDIR, LANG and these.
	Env []string
	// BwrapPath is the bubblewrap binary; "" looks "bwrap" up in PATH.
	BwrapPath string
	// Logger receives the warning that a sandbox runs unisolated; nil means
	// slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = DefaultCommandTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	o.UID = cmp.Or(o.UID, DefaultUID)
	o.GID = cmp.Or(o.GID, DefaultGID)
	o.Logger = cmp.Or(o.Logger, slog.Default())
	o.Limits = o.Limits.WithDefaults()
	return o
}

// Sandbox is a directory on this machine whose commands run inside
// bubblewrap. It implements [workspace.FileSystem],
// [workspace.FileOpener], [workspace.CommandRunner],
// [workspace.TreeRemover] and [workspace.WorkDirer]. A Sandbox holds no open resources and is safe for
// concurrent use.
type Sandbox struct {
	dir   string
	opts  Options
	user  runAs
	mode  mode
	bwrap bwrapInfo
	off   error // why commands cannot run, in modeOff
	// mounted: keel mounts the directory for bwrap, whose user cannot
	// walk down to it (see mountInto).
	mounted bool
	enf     Enforcement
	env     []string
	cg      *cgroups
	// filter is the seccomp filter of the commands; nil without one.
	filter []byte
	// ownFS: the sandbox is a file system of its own, the size of its
	// quota; noFS says why not.
	ownFS bool
	noFS  string
}

// mode is how a sandbox runs commands.
type mode int

const (
	modeOff mode = iota
	modeIsolated
	modeUnisolated
)

// New returns the sandbox kept in dir, creating dir if needed. Its files
// always work. Commands run isolated by bubblewrap, which is probed once
// per process; when it cannot run, commands are off (RunCommand returns
// an [*IsolationError]) unless opts.AllowUnisolated is set, and then they
// run unisolated and a warning is logged. When keel runs as root, dir and
// everything in it are given to opts.UID and opts.GID, who run the
// commands. New fails only when dir cannot be made or given.
func New(dir string, opts Options) (*Sandbox, error) {
	opts = opts.withDefaults()
	if dir == "" {
		return nil, errors.New("localsandbox: new: empty directory")
	}
	if err := validIDs(opts); err != nil {
		return nil, fmt.Errorf("localsandbox: new: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("localsandbox: new: %w", err)
	}
	// The parents are the sandbox root, which the commands' user must be
	// able to enter; the sandbox itself is its user's alone.
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("localsandbox: new: %w", err)
	}
	if err := os.Mkdir(abs, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("localsandbox: new: %w", err)
	}
	s := &Sandbox{dir: abs, opts: opts, user: userFor(opts), cg: &cgroups{}}
	s.ownFS, s.noFS = s.diskMode()
	if err := s.user.own(abs); err != nil {
		return nil, fmt.Errorf("localsandbox: new: %w", err)
	}
	info, perr := probe(opts.BwrapPath, s.user)
	switch {
	case perr == nil:
		s.bwrap, s.mode = info, modeIsolated
		s.cg = systemCgroups()
		if info.noSeccomp == "" {
			s.filter = seccompProgram(!s.ownFS)
		}
	case opts.AllowUnisolated:
		s.mode = modeUnisolated
		opts.Logger.Warn("localsandbox: running commands UNISOLATED: they see the whole machine and its network",
			"dir", abs, "reason", perr.Error())
	default:
		s.off = perr
	}
	if s.mode != modeOff {
		if s.mounted, s.off = reachOrMount(info, s.user, abs, s.mode == modeIsolated); s.off != nil {
			s.mode = modeOff
		}
	}
	s.enf = enforcement(opts.Limits, s.cg, s.mode == modeIsolated, s.user.dedicated, s.bwrap.noRlimits, s.noFS)
	s.env = commandEnv(s.WorkDir(), opts.Env)
	return s, nil
}

// diskMode gives the sandbox a file system of its own when it can, and
// else says why not.
func (s *Sandbox) diskMode() (bool, string) {
	l := s.opts.Limits
	switch {
	case l.Disk < 0:
		return false, "the disk quota is off"
	case !s.opts.OwnFilesystem:
		return false, "OwnFilesystem is not set"
	}
	tools, err := fsQuotaUsable(filepath.Dir(s.dir))
	if err != nil {
		return false, err.Error()
	}
	// Files below 0 (no limit) leaves the inode count to mkfs.ext4.
	return ownFilesystem(tools, s.dir, l.Disk, max(l.Files, 0), s.user.uid, s.user.gid)
}

// validIDs refuses ids that would run commands as root or are not ids.
func validIDs(o Options) error {
	for _, id := range []struct {
		name string
		v    int
	}{{"UID", o.UID}, {"GID", o.GID}} {
		if id.v <= 0 || id.v > 4294967294 {
			return fmt.Errorf("%s %d: use an unprivileged id from 1 to 4294967294", id.name, id.v)
		}
	}
	return nil
}

// ID returns "local:" followed by the sandbox's directory on the host.
func (s *Sandbox) ID() string { return "local:" + s.dir }

// Dir returns the sandbox's directory on the host.
func (s *Sandbox) Dir() string { return s.dir }

// Isolated reports whether commands run inside bubblewrap.
func (s *Sandbox) Isolated() bool { return s.mode == modeIsolated }

// WorkDir returns the directory commands start in, as they see it: the
// directory's real path when commands run unisolated, else [HomeDir]
// (also when commands are off: files keep the paths they would have).
func (s *Sandbox) WorkDir() string {
	if s.mode == modeUnisolated {
		return s.dir
	}
	return HomeDir
}

func commandEnv(home string, extra []string) []string {
	env := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + home,
		"TMPDIR=/tmp",
		"LANG=C.UTF-8",
	}
	return append(env, extra...)
}

var (
	_ workspace.FileSystem    = (*Sandbox)(nil)
	_ workspace.CommandRunner = (*Sandbox)(nil)
	_ workspace.TreeRemover   = (*Sandbox)(nil)
	_ workspace.WorkDirer     = (*Sandbox)(nil)
	_ workspace.FileOpener    = (*Sandbox)(nil)
)
