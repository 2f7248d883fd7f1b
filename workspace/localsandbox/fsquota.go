package localsandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// With [Options].OwnFilesystem, where keel runs as root and may mount,
// each sandbox gets a file system of its own, the size of its disk quota: an ext4 image beside the
// sandbox's directory (DIR.img, a sparse file that takes on the host
// only what the sandbox holds, and gives back what it removes, since it
// is mounted with discard), loop-mounted on the directory with nosuid
// and nodev. Then the kernel enforces the quota: a write past it fails
// with ENOSPC, whatever a command does and however fast (fallocate
// bursts, sparse files, a million empty files against the image's inode
// count), and nothing needs measuring: statfs says how full it is. The
// mount outlives keel, so that the next keel finds the sandbox as it
// was; the image is mounted again when its directory is empty (after a
// reboot). A directory that already holds files, or is a mount point of
// something else, keeps the measured quota.
//
// Without OwnFilesystem, or where it cannot be done (not root, no
// CAP_SYS_ADMIN, no loop devices, no mkfs.ext4), the quota is measured
// (see quota.go). OwnFilesystem is off by default because the mount
// outlives keel: a directory that holds a mounted sandbox cannot be
// removed until it is unmounted ([Unmount], or umount DIR).
//
// XFS project quotas would spare the image but need the sandbox root on
// an XFS file system mounted with prjquota; tmpfs with size= would cost
// the quota in memory rather than disk. The image works on any file
// system the host has.

// imageSuffix names a sandbox's image beside its directory.
const imageSuffix = ".img"

// journalMin is the smallest quota whose file system gets a journal (a
// sandbox's files then survive a crash of the host intact); below it the
// journal would take too much of the space.
const journalMin = 256 << 20

// fsQuotaTools are the programs the file system quota needs.
type fsQuotaTools struct{ mkfs, mount string }

// fsQuotaProbes caches, per sandbox root, whether a file system per
// sandbox works there: nil, or why not.
var fsQuotaProbes sync.Map // root -> *probeResult

// fsQuotaUsable reports whether sandboxes kept under root can have a file
// system of their own, trying it once per root; the error says why not.
func fsQuotaUsable(root string) (fsQuotaTools, error) {
	tools, err := findFSQuotaTools()
	if err != nil {
		return tools, err
	}
	v, _ := fsQuotaProbes.LoadOrStore(root, &probeResult{})
	p := v.(*probeResult)
	p.once.Do(func() { p.err = probeFSQuota(tools, root) })
	return tools, p.err
}

func findFSQuotaTools() (fsQuotaTools, error) {
	if os.Geteuid() != 0 || !hasCapability(unix.CAP_SYS_ADMIN) {
		return fsQuotaTools{}, errors.New("only root with CAP_SYS_ADMIN can mount a file system per sandbox")
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		return fsQuotaTools{}, errors.New("there are no loop devices (/dev/loop-control)")
	}
	var t fsQuotaTools
	for _, name := range []string{"mkfs.ext4", "/sbin/mkfs.ext4", "/usr/sbin/mkfs.ext4"} {
		if p, err := exec.LookPath(name); err == nil {
			t.mkfs = p
			break
		}
	}
	if t.mkfs == "" {
		return t, errors.New("mkfs.ext4 is not installed (Debian and Ubuntu: apt-get install e2fsprogs)")
	}
	for _, name := range []string{"mount", "/bin/mount", "/usr/bin/mount"} {
		if p, err := exec.LookPath(name); err == nil {
			t.mount = p
			break
		}
	}
	if t.mount == "" {
		return t, errors.New("mount is not installed (util-linux)")
	}
	return t, nil
}

// probeFSQuota makes, mounts and removes a small file system under root.
func probeFSQuota(t fsQuotaTools, root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(root, ".keel-probe-")
	if err != nil {
		return err
	}
	defer os.Remove(dir)
	defer os.Remove(dir + imageSuffix)
	if err := makeImage(t, dir+imageSuffix, 16<<20, 64, 0, 0); err != nil {
		return err
	}
	if err := mountImage(t, dir+imageSuffix, dir); err != nil {
		return err
	}
	return unix.Unmount(dir, unix.MNT_DETACH)
}

// makeImage writes an empty ext4 image of size bytes with room for files
// files (0: as many as mkfs.ext4 gives), its root directory owned by
// uid:gid.
func makeImage(t fsQuotaTools, image string, size, files int64, uid, gid int) error {
	f, err := os.OpenFile(image, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(image)
		return err
	}
	args := []string{"-q", "-F", "-t", "ext4", "-m", "0",
		"-E", fmt.Sprintf("root_owner=%d:%d,lazy_itable_init=1,lazy_journal_init=1,nodiscard", uid, gid)}
	// An inode takes 256 bytes of the image and mkfs.ext4 wants at
	// least 1 KiB of it per inode: a small quota holds fewer files.
	if files > 0 {
		args = append(args, "-N", strconv.FormatInt(min(files, size/2048), 10))
	}
	if size >= journalMin {
		args = append(args, "-J", "size="+strconv.FormatInt(max(4, size>>26), 10))
	} else {
		args = append(args, "-O", "^has_journal")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, t.mkfs, append(args, image)...).CombinedOutput(); err != nil {
		os.Remove(image)
		return fmt.Errorf("mkfs.ext4: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// mountImage loop-mounts image on dir, and removes lost+found, which only
// root could remove and which no one needs in a sandbox.
func mountImage(t fsQuotaTools, image, dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, t.mount, "-t", "ext4", "-o", "loop,nosuid,nodev,noatime,discard", image, dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mount %s: %v: %s", image, err, strings.TrimSpace(string(out)))
	}
	_ = os.Remove(filepath.Join(dir, "lost+found"))
	return nil
}

// ownMounts remembers the directories found or made to be a sandbox's own
// file system, with their device, so that a sandbox made again for the
// same directory (one per request) is recognised with one stat.
var ownMounts sync.Map // dir -> uint64 device

// fsLocks serialises setting up a file system per directory.
var fsLocks sync.Map // dir -> *sync.Mutex

// ownFilesystem gives the sandbox in dir a file system of its own of size
// bytes for files files, as described at the top of this file. It returns
// false, and why, when dir keeps the measured quota.
func ownFilesystem(t fsQuotaTools, dir string, size, files int64, uid, gid int) (bool, string) {
	if dev, ok := ownMounts.Load(dir); ok && deviceOf(dir) == dev.(uint64) {
		return true, ""
	}
	mu, _ := fsLocks.LoadOrStore(dir, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	image := dir + imageSuffix
	if isMountPoint(dir) {
		if mountedImage(dir) == image {
			ownMounts.Store(dir, deviceOf(dir))
			return true, ""
		}
		return false, "its directory is a mount point of something else"
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err.Error()
	}
	if len(entries) > 0 {
		return false, "its directory held files before it had a file system of its own"
	}
	if _, err := os.Stat(image); errors.Is(err, os.ErrNotExist) {
		if err := makeImage(t, image, size, files, uid, gid); err != nil {
			return false, err.Error()
		}
	}
	if err := mountImage(t, image, dir); err != nil {
		return false, err.Error()
	}
	ownMounts.Store(dir, deviceOf(dir))
	return true, ""
}

// Unmount detaches the file system of its own that the sandbox kept in
// dir may have (see [Options].OwnFilesystem), leaving its image beside it;
// the next sandbox made for dir mounts it again. It is for removing a
// sandbox and for tests; a dir without one is not an error.
func Unmount(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	ownMounts.Delete(abs)
	if !isMountPoint(abs) || mountedImage(abs) != abs+imageSuffix {
		return nil
	}
	if err := unix.Unmount(abs, unix.MNT_DETACH); err != nil {
		return fmt.Errorf("localsandbox: unmount %s: %w", abs, err)
	}
	return nil
}

func deviceOf(p string) uint64 {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return 0
	}
	return uint64(st.Dev)
}

// isMountPoint reports whether dir is on another device than its parent.
func isMountPoint(dir string) bool {
	d := deviceOf(dir)
	return d != 0 && d != deviceOf(filepath.Dir(dir))
}

// mountedImage returns the backing file of the loop device mounted on
// dir, or "".
func mountedImage(dir string) string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	source := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || unescapeMount(fields[4]) != dir {
			continue
		}
		for i, fld := range fields {
			if fld == "-" && i+2 < len(fields) {
				source = unescapeMount(fields[i+2]) // the last mount on dir wins
			}
		}
	}
	dev, ok := strings.CutPrefix(source, "/dev/")
	if !ok || !strings.HasPrefix(dev, "loop") {
		return ""
	}
	b, err := os.ReadFile("/sys/block/" + dev + "/loop/backing_file")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// fsUsage is what statfs says of a sandbox's own file system.
type fsUsage struct {
	used, size, free int64
	filesFree        uint64
}

func statFS(dir string) (fsUsage, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return fsUsage{}, fmt.Errorf("measure disk use of the sandbox: %w", err)
	}
	bs := int64(st.Bsize)
	return fsUsage{
		used:      int64(st.Blocks-st.Bfree) * bs,
		size:      int64(st.Blocks) * bs,
		free:      int64(st.Bavail) * bs,
		filesFree: st.Ffree,
	}, nil
}
