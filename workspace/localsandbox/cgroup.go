package localsandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// A sandbox's memory and process limits are best enforced by a cgroup of
// its own, which counts every process of the sandbox together (and the
// memory of its /tmp). keel makes one per sandbox directory in use, under
// a "keel-sandboxes" group beside itself: in the unified (v2) hierarchy
// when it offers the memory and pids controllers, else in the v1
// hierarchy of each controller. The bwrap process joins the group before
// it reads its arguments, so everything it starts is inside.

// parentName is the group keel makes in its own cgroup to hold the
// sandboxes' groups.
const parentName = "keel-sandboxes"

// selfName is the leaf a v2 process moves itself into when it is alone in
// its cgroup: a cgroup with processes cannot hand controllers to
// children.
const selfName = "keel"

// cgroups is what this process can do with cgroups.
type cgroups struct {
	// version is 2 or 1; 0 when neither controller is usable.
	version int
	// memory and pids are the directories under which sandbox groups
	// are made for each controller; "" when it is not usable. In v2 both
	// are the same directory.
	memory, pids string
	// why says why a controller is not usable; "" when both are.
	why string
}

// mechanism returns how a controller found in dir enforces limits.
func (c *cgroups) mechanism(dir string) Mechanism {
	switch {
	case dir == "":
		return ""
	case c.version == 2:
		return CgroupV2
	default:
		return CgroupV1
	}
}

var (
	cgroupOnce  sync.Once
	cgroupFound *cgroups
)

// systemCgroups finds, once, what this process can do with cgroups.
func systemCgroups() *cgroups {
	cgroupOnce.Do(func() { cgroupFound = detectCgroups("/proc/self/cgroup", "/proc/self/mountinfo") })
	return cgroupFound
}

// detectCgroups reads this process's cgroups and the mounts, and sets up
// the parent groups: v2 when it has both controllers, else v1 per
// controller.
func detectCgroups(selfCgroup, mountinfo string) *cgroups {
	paths, err := readSelfCgroup(selfCgroup)
	if err != nil {
		return &cgroups{why: err.Error()}
	}
	mounts, err := readCgroupMounts(mountinfo)
	if err != nil {
		return &cgroups{why: err.Error()}
	}
	var whys []string
	if m, ok := mounts["cgroup2"]; ok {
		if p, ok := paths[""]; ok {
			dir, err := setupV2(m.dir(p))
			if err == nil {
				return &cgroups{version: 2, memory: dir, pids: dir}
			}
			whys = append(whys, "cgroup v2: "+err.Error())
		}
	}
	c := &cgroups{version: 1}
	for _, ctl := range []string{"memory", "pids"} {
		m, ok := mounts[ctl]
		p, inGroup := paths[ctl]
		var dir string
		switch {
		case !ok || !inGroup:
			err = fmt.Errorf("no %s controller is mounted", ctl)
		default:
			dir, err = setupParent(m.dir(p), 1)
		}
		if err != nil {
			whys = append(whys, "cgroup v1 "+ctl+": "+err.Error())
			continue
		}
		if ctl == "memory" {
			c.memory = dir
		} else {
			c.pids = dir
		}
	}
	if c.memory == "" && c.pids == "" {
		c.version = 0
	}
	if c.memory == "" || c.pids == "" {
		c.why = strings.Join(whys, "; ")
	}
	return c
}

// readSelfCgroup returns this process's cgroup path per v1 controller,
// and under "" its v2 path.
func readSelfCgroup(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	out := make(map[string]string)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			out[ctl] = parts[2]
		}
	}
	return out, nil
}

// cgroupMount is where a hierarchy is mounted, and which of its cgroups
// the mount shows at that point.
type cgroupMount struct {
	point, root string
}

// dir returns the directory of the cgroup at path (as /proc/self/cgroup
// gives it) under this mount.
func (m cgroupMount) dir(path string) string {
	rel := path
	if m.root != "/" {
		rel = strings.TrimPrefix(path, m.root)
	}
	return filepath.Join(m.point, rel)
}

// readCgroupMounts returns the cgroup mounts by controller, and the
// unified hierarchy under "cgroup2". The first mount of each wins.
func readCgroupMounts(path string) (map[string]cgroupMount, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	out := make(map[string]cgroupMount)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER
		fields := strings.Fields(sc.Text())
		sep := slices.Index(fields, "-")
		if sep < 5 || sep+3 >= len(fields) {
			continue
		}
		m := cgroupMount{point: unescapeMount(fields[4]), root: unescapeMount(fields[3])}
		switch fields[sep+1] {
		case "cgroup2":
			if _, ok := out["cgroup2"]; !ok {
				out["cgroup2"] = m
			}
		case "cgroup":
			for _, opt := range strings.Split(fields[sep+3], ",") {
				if _, ok := out[opt]; !ok && (opt == "memory" || opt == "pids") {
					out[opt] = m
				}
			}
		}
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// setupV2 makes the parent group in the unified hierarchy at own, this
// process's cgroup, and hands it the memory and pids controllers.
func setupV2(own string) (string, error) {
	avail, err := os.ReadFile(filepath.Join(own, "cgroup.controllers"))
	if err != nil {
		return "", err
	}
	for _, ctl := range []string{"memory", "pids"} {
		if !hasWord(string(avail), ctl) {
			return "", fmt.Errorf("%s offers no %s controller (it has: %q)", own, ctl, strings.TrimSpace(string(avail)))
		}
	}
	if err := enableControllers(own); err != nil {
		return "", err
	}
	return setupParent(own, 2)
}

// enableControllers turns on memory and pids for own's children. A cgroup
// that holds processes cannot (unless it is the root): when this process
// is alone in own, it moves into a leaf of its own first, as cgroup
// delegation (systemd's Delegate=yes, a container's own cgroup) expects.
func enableControllers(own string) error {
	ctl := filepath.Join(own, "cgroup.subtree_control")
	if on, err := os.ReadFile(ctl); err == nil && hasWord(string(on), "memory") && hasWord(string(on), "pids") {
		return nil
	}
	err := os.WriteFile(ctl, []byte("+memory +pids"), 0)
	if !errors.Is(err, syscall.EBUSY) {
		return err
	}
	procs, rerr := os.ReadFile(filepath.Join(own, "cgroup.procs"))
	if rerr != nil {
		return rerr
	}
	self := strconv.Itoa(os.Getpid())
	for _, p := range strings.Fields(string(procs)) {
		if p != self {
			return fmt.Errorf("%s holds other processes than keel, so keel cannot make cgroups under it", own)
		}
	}
	leaf := filepath.Join(own, selfName)
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(self), 0); err != nil {
		return fmt.Errorf("move keel into %s: %w", leaf, err)
	}
	return os.WriteFile(ctl, []byte("+memory +pids"), 0)
}

// hasWord reports whether w is one of the words of s.
func hasWord(s, w string) bool { return slices.Contains(strings.Fields(s), w) }

// setupParent makes base/keel-sandboxes, removes groups left by keel
// processes that are gone, and checks that a group with limits can be
// made in it.
func setupParent(base string, version int) (string, error) {
	parent := filepath.Join(base, parentName)
	if err := os.Mkdir(parent, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	if version == 2 {
		if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+memory +pids"), 0); err != nil {
			return "", err
		}
	}
	sweepStale(parent)
	probe := filepath.Join(parent, "probe-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	defer os.Remove(probe)
	// Writing back the value of a limit file proves keel may set limits;
	// which files there are depends on the hierarchy.
	for _, name := range []string{"pids.max", "memory.max", "memory.limit_in_bytes"} {
		f := filepath.Join(probe, name)
		v, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if err := os.WriteFile(f, v, 0); err != nil {
			return "", fmt.Errorf("cannot set limits in %s: %w", parent, err)
		}
		return parent, nil
	}
	return "", fmt.Errorf("%s offers no limit files", parent)
}

// sweepStale removes the groups of keel processes that no longer run; a
// group still holding processes stays (rmdir refuses).
func sweepStale(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := strings.TrimPrefix(e.Name(), "probe-")
		pidText, _, _ := strings.Cut(name, "-")
		pid, err := strconv.Atoi(pidText)
		if !e.IsDir() || err != nil || pid == os.Getpid() {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			_ = os.Remove(filepath.Join(parent, e.Name()))
		}
	}
}
