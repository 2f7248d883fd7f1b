package dockersandbox

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/internal/diskquota"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// Status says how sandboxes run on an engine: which engine, image and
// runtime, and how each limit is enforced. It is what a program tells its
// operator once at start ([Check]).
type Status struct {
	// Host is the engine's address; Version its version and APIVersion
	// the API version agreed with it.
	Host, Version, APIVersion string
	// Image is the image as named, ImageID the image it names now.
	Image, ImageID string
	// Runtime is the OCI runtime containers run with.
	Runtime string
	// UsernsRemap reports that the engine maps the containers' users to
	// unprivileged host users (dockerd --userns-remap), or runs rootless:
	// the host's root is then mapped nowhere in a container.
	UsernsRemap bool
	// Limits are the limits, defaults filled in; CPUs the CPU share.
	Limits localsandbox.Limits
	CPUs   float64
	// Enforcement says how each limit is enforced.
	Enforcement localsandbox.Enforcement
	// IdleTimeout is how long a container runs without a command.
	IdleTimeout time.Duration
	// Seccomp says which seccomp profile containers run under.
	Seccomp string
	// Warnings are what the engine said when it made a container with
	// these settings, such as that it cannot limit swap.
	Warnings []string
}

// engineInfo is what GET /info says, the fields keel reads.
type engineInfo struct {
	ServerVersion   string
	DefaultRuntime  string
	Runtimes        map[string]any
	SecurityOptions []string
	MemoryLimit     bool
	SwapLimit       bool
	PidsLimit       bool
	CPUCfsQuota     bool
}

// Check returns how sandboxes made with opts would run on e, and an
// error when they could not run at all: an image the engine does not
// have, a runtime it does not know, or a container of these settings
// that cannot start and run a command (one is made, used and removed to
// find out, as a cold sandbox would be).
func Check(ctx context.Context, e *Engine, opts Options) (Status, error) {
	opts = opts.withDefaults()
	st := Status{Host: e.host, APIVersion: e.version, Image: opts.Image, Runtime: opts.Runtime,
		Limits: opts.Limits, CPUs: opts.CPUs, IdleTimeout: opts.IdleTimeout, Seccomp: seccompProfile}
	if err := opts.validate(); err != nil {
		return st, fmt.Errorf("dockersandbox: check: %w", err)
	}
	var info engineInfo
	if err := e.call(ctx, "GET", "/info", nil, nil, &info); err != nil {
		return st, fmt.Errorf("dockersandbox: check: engine at %s: %w", e.host, err)
	}
	st.Version = info.ServerVersion
	st.Runtime = cmp.Or(st.Runtime, info.DefaultRuntime)
	if _, ok := info.Runtimes[st.Runtime]; !ok {
		return st, fmt.Errorf("dockersandbox: check: the engine at %s has no runtime %q (it has %s): install it and name it in dockerd's runtimes",
			e.host, st.Runtime, strings.Join(slices.Sorted(maps.Keys(info.Runtimes)), ", "))
	}
	for _, o := range info.SecurityOptions {
		if o == "name=userns" || o == "name=rootless" {
			st.UsernsRemap = true
		}
	}
	var img struct {
		ID string `json:"Id"`
	}
	if err := e.call(ctx, "GET", "/images/"+opts.Image+"/json", nil, nil, &img); err != nil {
		if isStatus(err, 404) {
			return st, fmt.Errorf("dockersandbox: check: the engine at %s has no image %s: build it (keel builds %s from a static busybox; see docs/docker.md)",
				e.host, opts.Image, DefaultImage)
		}
		return st, fmt.Errorf("dockersandbox: check: image %s: %w", opts.Image, err)
	}
	st.ImageID = img.ID
	st.Enforcement = enforcement(opts, info)
	opts.imageID = img.ID
	warnings, err := probe(ctx, e, opts)
	st.Warnings = warnings
	if err != nil {
		return st, err
	}
	return st, nil
}

// enforcement says how each limit is enforced on an engine.
func enforcement(o Options, info engineInfo) localsandbox.Enforcement {
	cg := func(ok bool) localsandbox.Mechanism {
		if ok {
			return "cgroup"
		}
		return localsandbox.NotEnforced
	}
	e := localsandbox.Enforcement{
		Processes: cg(info.PidsLimit),
		Memory:    cg(info.MemoryLimit),
		FileSize:  localsandbox.Rlimit,
		Disk:      localsandbox.Mechanism("measured before each write, around each command and every " + diskquota.Interval.String() + " while it runs"),
		CPUTime:   localsandbox.Rlimit,
	}
	if seccompOpt(true) != "" {
		e.Disk += ", fallocate refused"
	}
	var whys []string
	if !info.PidsLimit {
		whys = append(whys, "the engine cannot limit processes (no pids cgroup)")
	}
	if !info.MemoryLimit {
		whys = append(whys, "the engine cannot limit memory (no memory cgroup)")
	}
	l := o.Limits
	for _, f := range []struct {
		off bool
		m   *localsandbox.Mechanism
	}{{l.Processes < 0, &e.Processes}, {l.Memory < 0, &e.Memory}, {l.FileSize < 0, &e.FileSize}, {l.Disk < 0, &e.Disk}, {l.CPUTime < 0, &e.CPUTime}} {
		if f.off {
			*f.m = localsandbox.Unlimited
		}
	}
	e.Why = strings.Join(whys, "; ")
	return e
}

// probe makes a container of opts, runs a command in it and removes it
// with its volume, and returns what the engine warned of on the way.
func probe(ctx context.Context, e *Engine, opts Options) ([]string, error) {
	sb, err := New(e, "probe-"+newToken()[:12], opts)
	if err != nil {
		return nil, err
	}
	var created struct{ Warnings []string }
	err = e.call(ctx, "POST", "/containers/create", url.Values{"name": {sb.name}}, sb.body, &created)
	if err != nil {
		return nil, fmt.Errorf("dockersandbox: check: make a container of image %s: %w", opts.Image, err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = sb.destroy(cctx)
	}()
	if err := sb.start(ctx); err != nil {
		return created.Warnings, fmt.Errorf("dockersandbox: check: start a container of image %s with runtime %s: %w", opts.Image, opts.Runtime, err)
	}
	res, err := sb.RunCommand(ctx, workspace.Command{Line: "id -u", Timeout: time.Minute})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("exit status %d: %s", res.ExitCode, strings.TrimSpace(string(res.Stderr)))
	}
	if err != nil {
		return created.Warnings, fmt.Errorf("dockersandbox: check: run a command in a container of image %s (it needs /bin/sh with sleep, date, du, setsid and kill): %w",
			opts.Image, err)
	}
	return created.Warnings, nil
}

// String describes, in one line, how sandbox commands run and are
// limited.
func (st Status) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dockersandbox: sandbox commands run in containers of Docker %s at %s (API %s), image %s (%s), runtime %s",
		st.Version, st.Host, st.APIVersion, st.Image, shortID(st.ImageID), st.Runtime)
	b.WriteString(", as an unprivileged user with no network, no capabilities, no new privileges and a read-only root")
	if st.Seccomp != "" {
		b.WriteString(", under " + st.Seccomp)
	}
	if st.UsernsRemap {
		b.WriteString(", users remapped (the host's root is mapped nowhere)")
	} else {
		b.WriteString(", users not remapped (uid 1000 inside is uid 1000 on the host; dockerd --userns-remap=default maps them away)")
	}
	b.WriteString("; limits per sandbox: " + describe(st))
	if st.IdleTimeout > 0 {
		fmt.Fprintf(&b, "; a container stops after %v without a command, its files kept in its volume", st.IdleTimeout)
	}
	if st.Enforcement.Why != "" {
		b.WriteString(" (" + st.Enforcement.Why + ")")
	}
	for _, w := range st.Warnings {
		b.WriteString("; the engine warns: " + w)
	}
	return b.String()
}

// Warning returns what an operator must be told loudly, or "": that a
// limit is not enforced.
func (st Status) Warning() string {
	var missing []string
	e := st.Enforcement
	for _, f := range []struct {
		name string
		m    localsandbox.Mechanism
	}{{"processes", e.Processes}, {"memory", e.Memory}} {
		if f.m == localsandbox.NotEnforced {
			missing = append(missing, f.name)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("dockersandbox: sandbox commands have NO limit on %s: %s; %s", strings.Join(missing, ", "), e.Why, st.String())
}

func describe(st Status) string {
	l, e := st.Limits, st.Enforcement
	text := func(off bool, name, value string, m localsandbox.Mechanism) string {
		if off {
			return "no limit on " + name
		}
		return value + " (" + string(m) + ")"
	}
	parts := []string{
		text(l.Processes < 0, "processes", fmt.Sprintf("%d processes", l.Processes), e.Processes),
		text(l.Memory < 0, "memory", diskquota.Size(l.Memory)+" memory without swap", e.Memory),
		text(l.FileSize < 0, "file size", diskquota.Size(l.FileSize)+" per file", e.FileSize),
		text(l.Disk < 0, "disk", diskquota.Size(l.Disk)+" disk", e.Disk),
		text(l.CPUTime < 0, "CPU time", l.CPUTime.String()+" CPU per process", e.CPUTime),
	}
	if st.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%g CPUs at once (cgroup)", st.CPUs))
	}
	return strings.Join(parts, ", ")
}

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	return id[:min(len(id), 12)]
}
