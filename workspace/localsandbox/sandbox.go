package localsandbox

import (
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
)

// Options configure a [Sandbox]. The zero value is ready to use.
type Options struct {
	// AllowUnisolated lets the sandbox run commands with plain sh -c in its
	// directory when bubblewrap cannot run. Commands then see the whole
	// machine, its network and the directory's real path. Without it, [New]
	// fails with an [*IsolationError].
	AllowUnisolated bool
	// CommandTimeout ends a command that runs longer; 0 means
	// [DefaultCommandTimeout]. A command's own Timeout wins.
	CommandTimeout time.Duration
	// MaxOutput is how many bytes of stdout, and of stderr, a command's
	// result keeps; the rest is read and dropped. 0 means [DefaultMaxOutput].
	MaxOutput int
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
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Sandbox is a directory on this machine whose commands run inside
// bubblewrap. It implements [workspace.FileSystem],
// [workspace.CommandRunner] and [workspace.WorkDirer]. A Sandbox holds no
// open resources and is safe for concurrent use.
type Sandbox struct {
	dir      string
	opts     Options
	bwrap    string // "" when unisolated
	baseArgs []string
	env      []string
}

// New returns the sandbox kept in dir, creating dir if needed. Commands run
// isolated by bubblewrap, which is probed once per process; when it cannot
// run, New fails with an [*IsolationError] unless opts.AllowUnisolated is
// set, and then logs a warning.
func New(dir string, opts Options) (*Sandbox, error) {
	opts = opts.withDefaults()
	if dir == "" {
		return nil, errors.New("localsandbox: new: empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("localsandbox: new: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("localsandbox: new: %w", err)
	}
	s := &Sandbox{dir: abs, opts: opts}
	bin, perr := probe(opts.BwrapPath)
	switch {
	case perr == nil:
		s.bwrap = bin
		s.baseArgs = isolationArgs(abs)
	case opts.AllowUnisolated:
		opts.Logger.Warn("localsandbox: running commands UNISOLATED: they see the whole machine and its network",
			"dir", abs, "reason", perr.Error())
	default:
		return nil, perr
	}
	s.env = commandEnv(s.WorkDir(), opts.Env)
	return s, nil
}

// ID returns "local:" followed by the sandbox's directory on the host.
func (s *Sandbox) ID() string { return "local:" + s.dir }

// Dir returns the sandbox's directory on the host.
func (s *Sandbox) Dir() string { return s.dir }

// Isolated reports whether commands run inside bubblewrap.
func (s *Sandbox) Isolated() bool { return s.bwrap != "" }

// WorkDir returns the directory commands start in, as they see it:
// [HomeDir] when isolated, else the directory's real path.
func (s *Sandbox) WorkDir() string {
	if s.Isolated() {
		return HomeDir
	}
	return s.dir
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
	_ workspace.WorkDirer     = (*Sandbox)(nil)
)
