package dockersandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"
)

// The labels every sandbox container and volume carries, so that any keel
// server finds them again.
const (
	// LabelPrefix holds [Options].Prefix: the keel installation the
	// container belongs to.
	LabelPrefix = "io.keel.sandbox.prefix"
	// LabelKey holds the sandbox key, such as "resource-alice-1b2c...".
	LabelKey = "io.keel.sandbox.key"
	// LabelSpec holds the digest of the container's settings (image,
	// runtime, limits): servers configured alike share the container,
	// servers configured otherwise make one of their own on the same
	// volume.
	LabelSpec = "io.keel.sandbox.spec"
)

// attachTimeout bounds how long a sandbox tries to create or attach to
// its container: another server's container may still be being made
// (its name is taken before it can be looked at) or removed.
const attachTimeout = time.Minute

// removalWait bounds the wait for a stopped container's removal, after
// which it is removed by force.
const removalWait = 10 * time.Second

// createBody is what POST /containers/create takes, the fields keel sets.
type createBody struct {
	Image      string
	User       string
	WorkingDir string
	Env        []string
	Entrypoint []string
	Hostname   string
	Labels     map[string]string
	HostConfig hostConfig
}

type hostConfig struct {
	NetworkMode    string
	ReadonlyRootfs bool
	CapDrop        []string
	SecurityOpt    []string
	Init           bool
	AutoRemove     bool
	IpcMode        string
	Runtime        string   `json:",omitempty"`
	PidsLimit      *int64   `json:",omitempty"`
	Memory         int64    `json:",omitempty"`
	MemorySwap     int64    `json:",omitempty"`
	NanoCpus       int64    `json:",omitempty"`
	Ulimits        []ulimit `json:",omitempty"`
	Tmpfs          map[string]string
	Mounts         []mount
	LogConfig      logConfig
}

type ulimit struct {
	Name       string
	Soft, Hard int64
}

type mount struct {
	Type          string
	Source        string
	Target        string
	VolumeOptions *volumeOptions `json:",omitempty"`
}

type volumeOptions struct {
	Labels map[string]string
}

type logConfig struct {
	Type string
}

// containerInfo is what GET /containers/{id}/json says, the fields keel
// reads.
type containerInfo struct {
	ID    string `json:"Id"`
	Name  string
	State struct {
		Status  string
		Running bool
	}
	Config struct {
		Labels map[string]string
	}
	HostConfig struct {
		NetworkMode    string
		ReadonlyRootfs bool
		CapDrop        []string
		SecurityOpt    []string
		Runtime        string
		PidsLimit      *int64
		Memory         int64
		MemorySwap     int64
		NanoCpus       int64
		Ulimits        []ulimit
	}
}

// spec returns the container's creation body, its labels set but for
// LabelSpec, which is the digest of the rest.
func (s *Sandbox) spec() createBody {
	o := s.opts
	l := o.Limits
	hc := hostConfig{
		NetworkMode:    "none",
		ReadonlyRootfs: true,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		Init:           true,
		AutoRemove:     true,
		IpcMode:        "private",
		Runtime:        o.Runtime,
		Tmpfs:          map[string]string{"/tmp": fmt.Sprintf("rw,nosuid,nodev,size=%d,mode=1777", o.TmpSize)},
		Mounts: []mount{{Type: "volume", Source: s.volume, Target: HomeDir, VolumeOptions: &volumeOptions{
			Labels: map[string]string{LabelPrefix: o.Prefix, LabelKey: s.key},
		}}},
		// The idle watcher says nothing; what commands print goes to
		// their exec, never to the container's log.
		LogConfig: logConfig{Type: "none"},
		Ulimits:   []ulimit{{Name: "core", Soft: 0, Hard: 0}},
	}
	// keel's seccomp profile, with fallocate refused when the disk quota
	// is measured (see seccomp_linux.go).
	if opt := seccompOpt(l.Disk >= 0); opt != "" {
		hc.SecurityOpt = append(hc.SecurityOpt, opt)
	}
	if l.Processes >= 0 {
		n := int64(l.Processes + containerProcesses)
		hc.PidsLimit = &n
	}
	if l.Memory >= 0 {
		hc.Memory, hc.MemorySwap = l.Memory, l.Memory
	}
	if o.CPUs > 0 {
		hc.NanoCpus = int64(o.CPUs * 1e9)
	}
	if l.FileSize >= 0 {
		hc.Ulimits = append(hc.Ulimits, ulimit{Name: "fsize", Soft: l.FileSize, Hard: l.FileSize})
	}
	if l.CPUTime >= 0 {
		// SIGXCPU at the soft limit, SIGKILL a second later, as the local
		// sandbox does.
		sec := int64((l.CPUTime + time.Second - 1) / time.Second)
		hc.Ulimits = append(hc.Ulimits, ulimit{Name: "cpu", Soft: sec, Hard: sec + 1})
	}
	idle := int64(0)
	if o.IdleTimeout > 0 {
		idle = int64((o.IdleTimeout + time.Second - 1) / time.Second)
	}
	return createBody{
		Image:      o.imageRef(),
		User:       strconv.Itoa(o.UID) + ":" + strconv.Itoa(o.GID),
		WorkingDir: HomeDir,
		Env:        baseEnv(),
		Entrypoint: []string{"/bin/sh", "-c", watcherScript, "keel-idle", strconv.FormatInt(idle, 10), idleTick(o.IdleTimeout)},
		Hostname:   "sandbox",
		Labels:     map[string]string{LabelPrefix: o.Prefix, LabelKey: s.key},
		HostConfig: hc,
	}
}

// specDigest is the first 12 hex digits of the SHA-256 of the body's
// JSON (map keys are sorted, so the same settings always give the same
// digest).
func specDigest(b createBody) string {
	raw, _ := json.Marshal(b)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:6])
}

// ensure makes the sandbox's container run: it creates it, or attaches to
// the one another server made (the engine refuses a second container of
// the same name with 409, which settles a race between servers), starts
// it when it was made but not started, and waits out one that is being
// removed.
func (s *Sandbox) ensure(ctx context.Context) error {
	var lastErr error
	deadline := time.Now().Add(attachTimeout)
	delay := 20 * time.Millisecond
	for first := true; ; first = false {
		if !first {
			if time.Now().After(deadline) {
				return fmt.Errorf("dockersandbox: could not create or attach to container %s in %v: %w", s.name, attachTimeout, lastErr)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(delay):
			}
			delay = min(2*delay, time.Second)
		}
		err := s.engine.call(ctx, "POST", "/containers/create", url.Values{"name": {s.name}}, s.body, nil)
		switch {
		case err == nil:
			if err := s.start(ctx); err == nil || !isStatus(err, 404) {
				return err
			}
			lastErr = err
			continue
		case isStatus(err, 404):
			return fmt.Errorf("dockersandbox: create container: image %s: %w (build it: see dockersandbox.BuildImage)", s.opts.Image, err)
		case !isStatus(err, 409):
			return fmt.Errorf("dockersandbox: create container %s: %w", s.name, err)
		}
		lastErr = err
		info, err := s.inspect(ctx)
		switch {
		case isStatus(err, 404):
			// Being made (its name is taken first) or removed.
			continue
		case err != nil:
			return fmt.Errorf("dockersandbox: inspect container %s: %w", s.name, err)
		}
		if info.Config.Labels[LabelKey] != s.key || info.Config.Labels[LabelSpec] != s.digest {
			return fmt.Errorf("dockersandbox: container %s exists and is not this sandbox's (labels %v): remove it", s.name, info.Config.Labels)
		}
		switch info.State.Status {
		case "running":
			return nil
		case "created":
			if err := s.start(ctx); err == nil || !isStatus(err, 404) {
				return err
			}
		case "paused":
			return fmt.Errorf("dockersandbox: container %s is paused: unpause it", s.name)
		default:
			// Exited, dead or being removed: the engine removes it (it was
			// made with AutoRemove); a new one follows.
			if err := s.awaitRemoval(ctx); err != nil {
				return err
			}
		}
	}
}

func (s *Sandbox) start(ctx context.Context) error {
	err := s.engine.call(ctx, "POST", "/containers/"+s.name+"/start", nil, nil, nil)
	if err != nil && !isStatus(err, 404) {
		return fmt.Errorf("dockersandbox: start container %s: %w", s.name, err)
	}
	return err
}

func (s *Sandbox) inspect(ctx context.Context) (*containerInfo, error) {
	var info containerInfo
	if err := s.engine.call(ctx, "GET", "/containers/"+s.name+"/json", nil, nil, &info); err != nil {
		return nil, err
	}
	return &info, nil
}

// awaitRemoval waits until the stopped container is gone, and removes it
// by force when the engine did not in time. Its volume stays.
func (s *Sandbox) awaitRemoval(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, removalWait)
	defer cancel()
	err := s.engine.call(wctx, "POST", "/containers/"+s.name+"/wait", url.Values{"condition": {"removed"}}, nil, nil)
	if err == nil || isStatus(err, 404) {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	err = s.engine.call(ctx, "DELETE", "/containers/"+s.name, url.Values{"force": {"1"}}, nil, nil)
	if err != nil && !isStatus(err, 404) && !isStatus(err, 409) {
		return fmt.Errorf("dockersandbox: remove stopped container %s: %w", s.name, err)
	}
	return nil
}

// kill ends every process of the container at once; the engine then
// removes it and the next use makes a new one. It is the last resort when
// a command's processes cannot be ended from inside, as when they took
// every process the sandbox may have.
func (s *Sandbox) kill(ctx context.Context) error {
	err := s.engine.call(ctx, "POST", "/containers/"+s.name+"/kill", nil, nil, nil)
	if err != nil && !isStatus(err, 404) && !isStatus(err, 409) {
		return fmt.Errorf("dockersandbox: kill container %s: %w", s.name, err)
	}
	return nil
}

// gone reports whether err says that the container is missing or not
// running, which a new or started container mends.
func gone(err error) bool {
	return isStatus(err, 404) || isStatus(err, 409)
}
