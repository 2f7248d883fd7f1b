package localsandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// group is one sandbox's cgroup (one directory per v1 hierarchy), shared
// by its commands that run at the same time.
type group struct {
	key  string
	dirs []string
	refs int
}

var groups = struct {
	sync.Mutex
	m map[string]*group
}{m: make(map[string]*group)}

// join returns the group for the sandbox in dir with limits l, making it
// if no command of that sandbox runs; every join is followed by a leave.
// It returns nil when no controller is used for l.
func (c *cgroups) join(dir string, l Limits) (*group, error) {
	memory := c.memory != "" && l.Memory > 0
	pids := c.pids != "" && l.Processes > 0
	if !memory && !pids {
		return nil, nil
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", dir, l.Memory, l.Processes)))
	name := strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(sum[:8])
	groups.Lock()
	defer groups.Unlock()
	key := c.memory + "|" + c.pids + "|" + name
	if g, ok := groups.m[key]; ok && g.refs > 0 {
		g.refs++
		return g, nil
	}
	// A group whose removal failed is made again: mkdir finds it, and
	// its limits are written anew.
	g := &group{key: key, refs: 1}
	type limitFile struct {
		name, value string
		optional    bool
	}
	var made []string
	mk := func(parent string, files []limitFile) error {
		d := filepath.Join(parent, name)
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		made = append(made, d)
		for _, f := range files {
			err := os.WriteFile(filepath.Join(d, f.name), []byte(f.value), 0)
			if err != nil && !(f.optional && errors.Is(err, os.ErrNotExist)) {
				return fmt.Errorf("set %s: %w", f.name, err)
			}
		}
		return nil
	}
	mem, procs := strconv.FormatInt(l.Memory, 10), strconv.Itoa(l.Processes)
	var err error
	switch {
	case c.version == 2:
		var files []limitFile
		if memory {
			// No swap: the limit is on memory the sandbox holds, not
			// memory it pushes onto the host's swap.
			files = append(files, limitFile{"memory.max", mem, false}, limitFile{"memory.swap.max", "0", true})
		}
		if pids {
			files = append(files, limitFile{"pids.max", procs, false})
		}
		err = mk(c.memory, files)
	default:
		if memory {
			// memsw (memory and swap) must be at least the memory limit,
			// so it is set after it; it exists only with swap accounting.
			err = mk(c.memory, []limitFile{{"memory.limit_in_bytes", mem, false}, {"memory.memsw.limit_in_bytes", mem, true}})
		}
		if err == nil && pids {
			err = mk(c.pids, []limitFile{{"pids.max", procs, false}})
		}
	}
	if err != nil {
		for _, d := range made {
			_ = os.Remove(d)
		}
		return nil, err
	}
	g.dirs = made
	groups.m[key] = g
	return g, nil
}

// add puts the process pid (and so all it starts) into the group.
func (g *group) add(pid int) error {
	for _, d := range g.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return err
		}
	}
	return nil
}

// leave ends one join; the last one removes the group. A command ended
// by a signal returns before its pid namespace is torn down, and a
// cgroup holding processes cannot be removed: then removal is tried again
// in the background for a while, unless a command joins the group anew.
func (c *cgroups) leave(g *group) {
	if g == nil {
		return
	}
	groups.Lock()
	defer groups.Unlock()
	g.refs--
	if g.refs > 0 || g.removeLocked() {
		return
	}
	go func() {
		for range removeTries {
			time.Sleep(removeRetry)
			groups.Lock()
			done := groups.m[g.key] != g || g.refs > 0 || g.removeLocked()
			groups.Unlock()
			if done {
				return
			}
		}
	}()
}

// removeRetry and removeTries bound the removal of a group whose
// processes are still being killed: 5 s in all.
const (
	removeRetry = 20 * time.Millisecond
	removeTries = 250
)

// removeLocked removes the group's directories and forgets it, and
// reports whether all went; the caller holds groups' lock.
func (g *group) removeLocked() bool {
	removed := true
	for _, d := range g.dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			removed = false
		}
	}
	if removed {
		delete(groups.m, g.key)
	}
	return removed
}
