package dockersandbox

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/diskquota"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// HomeDir is the sandbox's working directory in its container, where its
// volume is mounted: the same as a local sandbox's, so that upload paths
// read alike.
const HomeDir = localsandbox.HomeDir

// Defaults of [Options].
const (
	// DefaultPrefix starts the names of the containers and volumes.
	DefaultPrefix = "keel"
	// DefaultIdleTimeout is how long a container runs with no command
	// before it stops: 15 minutes, longer than the longest time limit a
	// command may have (10 minutes), so that a user who reads a command's
	// answer and runs the next finds the container warm.
	DefaultIdleTimeout = 15 * time.Minute
	// DefaultCPUs is how many CPUs' worth of time a sandbox's commands may
	// use at once.
	DefaultCPUs = 1.0
	// DefaultTmpSize is the size of the container's /tmp: 64 MiB of
	// memory, counted in the memory limit.
	DefaultTmpSize = 64 << 20
	// DefaultUID and DefaultGID are the user and group commands run as in
	// the container: the local sandbox's inside user.
	DefaultUID = localsandbox.InsideUID
	DefaultGID = localsandbox.InsideGID
)

// Options configure the sandboxes of one [Resolver] (or one [New]). The
// zero value but for Image is ready to use.
type Options struct {
	// Image is the container image, such as "keel/sandbox:busybox" (see
	// [BuildImage]). Required. It needs a POSIX sh with sleep, date, du,
	// setsid and kill, and a HomeDir owned by UID.
	Image string
	// Runtime is the engine's OCI runtime for the containers, such as
	// "runsc" for gVisor; "" means the engine's default (runc).
	Runtime string
	// Limits bound what each sandbox's commands may use, as for a local
	// sandbox; zero fields are localsandbox's defaults, negative ones turn
	// a limit off.
	Limits localsandbox.Limits
	// CPUs is how many CPUs' worth of time the sandbox's commands may use
	// at once; 0 means [DefaultCPUs], a negative value no limit.
	CPUs float64
	// TmpSize is the size in bytes of the container's /tmp; 0 means
	// [DefaultTmpSize].
	TmpSize int64
	// IdleTimeout stops a container after this long without a command;
	// its files stay in its volume. 0 means [DefaultIdleTimeout], a
	// negative value never.
	IdleTimeout time.Duration
	// CommandTimeout ends a command that runs longer; 0 means
	// [localsandbox.DefaultCommandTimeout]. A command's own Timeout wins.
	CommandTimeout time.Duration
	// MaxOutput is how many bytes of stdout, and of stderr, a command's
	// result keeps; 0 means [localsandbox.DefaultMaxOutput].
	MaxOutput int
	// Env holds extra "KEY=value" variables for commands, beside PATH,
	// HOME, TMPDIR and LANG.
	Env []string
	// UID and GID are the user and group commands run as, and that own
	// the files keel writes; 0 means [DefaultUID] and [DefaultGID].
	UID, GID int
	// Prefix starts the names of the containers and volumes and is their
	// LabelPrefix: servers that share sandboxes use the same; 0 means
	// [DefaultPrefix].
	Prefix string

	// imageID pins the image to the ID the resolver found, so that a tag
	// built anew gives new containers.
	imageID string
}

func (o Options) withDefaults() Options {
	o.Prefix = cmp.Or(o.Prefix, DefaultPrefix)
	o.IdleTimeout = cmp.Or(o.IdleTimeout, DefaultIdleTimeout)
	o.CPUs = cmp.Or(o.CPUs, DefaultCPUs)
	if o.TmpSize <= 0 {
		o.TmpSize = DefaultTmpSize
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = localsandbox.DefaultCommandTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = localsandbox.DefaultMaxOutput
	}
	o.UID = cmp.Or(o.UID, DefaultUID)
	o.GID = cmp.Or(o.GID, DefaultGID)
	o.Limits = o.Limits.WithDefaults()
	return o
}

// imageRef is the image new containers are made of: the pinned ID, else
// the image as named.
func (o Options) imageRef() string { return cmp.Or(o.imageID, o.Image) }

func (o Options) validate() error {
	switch {
	case strings.TrimSpace(o.Image) == "":
		return errors.New("no image: set Options.Image")
	case !validName.MatchString(o.Prefix):
		return fmt.Errorf("prefix %q: use letters, digits, '_', '.' and '-', starting with a letter or digit", o.Prefix)
	case o.UID < 0 || o.GID < 0:
		return fmt.Errorf("uid %d, gid %d: ids cannot be negative", o.UID, o.GID)
	}
	return nil
}

// validName is what the engine accepts in a container or volume name.
var validName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$`)

// Sandbox is one container, found by its name, and the volume at its
// working directory. It implements [workspace.FileSystem],
// [workspace.CommandRunner], [workspace.TreeRemover] and
// [workspace.WorkDirer]. The container is made on first use, and again
// after it stopped when idle; every method makes it run when it needs to.
// A Sandbox is safe for concurrent use.
type Sandbox struct {
	engine *Engine
	opts   Options
	key    string
	volume string
	name   string
	digest string
	body   createBody
}

// New returns the sandbox of key on engine: the volume "PREFIX-KEY" and
// the container "PREFIX-KEY-DIGEST", where DIGEST stands for the
// container's settings. key is 1 to 100 of [A-Za-z0-9_.-] (a [Resolver]
// makes one from an ID). New makes nothing on the engine.
func New(engine *Engine, key string, opts Options) (*Sandbox, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("dockersandbox: new: %w", err)
	}
	if len(key) > 100 || !validName.MatchString(key) {
		return nil, fmt.Errorf("dockersandbox: new: key %q: use 1 to 100 of letters, digits, '_', '.' and '-'", key)
	}
	if engine == nil {
		return nil, errors.New("dockersandbox: new: no engine")
	}
	s := &Sandbox{engine: engine, opts: opts, key: key, volume: opts.Prefix + "-" + key}
	s.body = s.spec()
	s.digest = specDigest(s.body)
	s.body.Labels[LabelSpec] = s.digest
	s.name = s.volume + "-" + s.digest
	return s, nil
}

// ID returns "docker:" followed by the container's name.
func (s *Sandbox) ID() string { return "docker:" + s.name }

// Key returns the sandbox's key.
func (s *Sandbox) Key() string { return s.key }

// Container returns the name of the sandbox's container.
func (s *Sandbox) Container() string { return s.name }

// Volume returns the name of the sandbox's volume.
func (s *Sandbox) Volume() string { return s.volume }

// WorkDir returns [HomeDir].
func (s *Sandbox) WorkDir() string { return HomeDir }

func baseEnv() []string {
	return []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + HomeDir,
		"TMPDIR=/tmp",
		"LANG=C.UTF-8",
	}
}

func (s *Sandbox) env() []string { return append(baseEnv(), s.opts.Env...) }

// errQuotaKill is the cause of a command ended for taking its sandbox
// over its disk quota.
var errQuotaKill = errors.New("over the disk quota")

// RunCommand runs c.Line with sh -c in the container's working directory,
// as the sandbox's user. The command ends after c.Timeout (else the
// sandbox's CommandTimeout) or when ctx is done; then every process of
// its session is killed, and the error wraps context.DeadlineExceeded or
// ctx's error, with the output so far in the result. Processes it left in
// the background end with it. A command that takes the sandbox over its
// disk quota is ended; that one, and any command after which the sandbox
// is over its quota, returns its result with a last line of Stderr
// saying so.
func (s *Sandbox) RunCommand(ctx context.Context, c workspace.Command) (*workspace.CommandResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("dockersandbox: run command: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = s.opts.CommandTimeout
	}
	quota := s.opts.Limits.Disk
	req := execRequest{line: c.Line, stdin: c.Stdin, timeout: timeout, maxOutput: s.opts.MaxOutput,
		measure: quota >= 0, files: s.opts.Limits.Files, quota: quota}
	var over bool
	var failed error
	if quota >= 0 {
		req.watch = func(before int64, beforeErr error, end func(error), stop <-chan struct{}) {
			// The wrapper reported the size before the command, in the
			// same exec, as the command starts (see diskquota.Limit).
			limit := diskquota.Limit(quota, before, beforeErr)
			w := diskquota.Start(s.measure, func() int64 { return limit }, func() { end(errQuotaKill) })
			<-stop
			over, failed = w.Stop()
		}
	}
	res, err := s.exec(ctx, req)
	if res == nil {
		return nil, fmt.Errorf("dockersandbox: run command: %w", err)
	}
	out := &workspace.CommandResult{ExitCode: res.exit, Stdout: res.stdout, Stderr: res.stderr,
		Truncated: res.truncated, Duration: res.duration}
	if quota >= 0 && (err == nil || errors.Is(err, errQuotaKill)) {
		merr := res.afterErr
		if merr != nil {
			merr = fmt.Errorf("measure disk use: %w", merr)
		}
		if note := diskquota.Note("dockersandbox", quota, res.after, merr, over, failed); note != "" {
			if len(out.Stderr) > 0 && out.Stderr[len(out.Stderr)-1] != '\n' {
				out.Stderr = append(out.Stderr, '\n')
			}
			out.Stderr = append(out.Stderr, note+"\n"...)
		}
	}
	switch {
	case errors.Is(err, errQuotaKill):
		return out, nil
	case err != nil:
		return out, fmt.Errorf("dockersandbox: run command: %w", err)
	}
	return out, nil
}

// measure returns how many bytes the working directory holds (keel_du
// in the container: each file by the larger of the allocated and the
// apparent totals, a file with several links once). A directory du
// cannot read, or more entries than [localsandbox.Limits].Files, is an
// error, so that a command cannot hide files from the quota.
func (s *Sandbox) measure(ctx context.Context) (int64, error) {
	res, err := s.exec(ctx, execRequest{line: measureLine(s.opts.Limits.Files),
		timeout: s.opts.CommandTimeout, maxOutput: 4096, readOnly: true})
	if err != nil {
		return 0, fmt.Errorf("measure disk use: %w", err)
	}
	n, err := parseMeasure(bytes.TrimSpace(res.stdout))
	if err != nil {
		if err == errNotMeasured {
			return 0, fmt.Errorf("measure disk use: exit status %d, %q: %w", res.exit, clip(append(res.stdout, res.stderr...)), err)
		}
		return 0, fmt.Errorf("measure disk use: %w", err)
	}
	return n, nil
}

var (
	_ workspace.FileSystem    = (*Sandbox)(nil)
	_ workspace.CommandRunner = (*Sandbox)(nil)
	_ workspace.TreeRemover   = (*Sandbox)(nil)
	_ workspace.WorkDirer     = (*Sandbox)(nil)
)
