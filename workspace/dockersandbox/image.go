package dockersandbox

import (
	"archive/tar"
	"bufio"
	"cmp"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultImage is the image keel builds from a static busybox when a
// sandbox names none (see [BuildImage]).
const DefaultImage = "keel/sandbox:busybox"

// DefaultBusybox is where Debian's busybox-static puts its binary.
const DefaultBusybox = "/bin/busybox"

// The image is one static busybox and the links to its applets, a
// getconf of its own (busybox has none), /etc/passwd and /etc/group
// naming the sandbox's user, and the directories the container needs
// with the modes it needs: /home/user owned by the user (a new volume
// takes its owner and mode from there) and /tmp 1777 (the runtime gives
// the tmpfs mounted on it the mode of the directory it covers). It is
// imported from a tar keel writes, so no registry is needed.

// getconfScript answers CLK_TCK and PAGESIZE from the kernel's auxiliary
// vector, where a C library's getconf reads them too.
const getconfScript = `#!/bin/sh
case $1 in
CLK_TCK) want=17 ;;
PAGESIZE | PAGE_SIZE) want=6 ;;
*) echo "getconf: $1: not known in this sandbox (busybox has no getconf; keel's answers CLK_TCK and PAGESIZE)" >&2; exit 1 ;;
esac
v=$(od -An -tu8 -v /proc/self/auxv | while read -r k x; do if [ "$k" = "$want" ]; then echo "$x"; break; fi; done)
[ -n "$v" ] || exit 1
echo "$v"
`

// BuildImage imports into the engine an image named ref (such as
// [DefaultImage]) holding the static busybox at busybox (such as
// [DefaultBusybox]) as its shell and tools, for sandboxes whose user is
// uid:gid (0 means [DefaultUID] and [DefaultGID]). It needs no registry:
// the image's one layer is written here and sent to the engine. A busybox
// that is not statically linked is refused: the image has no C library.
func BuildImage(ctx context.Context, e *Engine, ref, busybox string, uid, gid int) error {
	uid = cmp.Or(uid, DefaultUID)
	gid = cmp.Or(gid, DefaultGID)
	repo, tag, err := splitRef(ref)
	if err != nil {
		return fmt.Errorf("dockersandbox: build image: %w", err)
	}
	if err := checkStatic(busybox); err != nil {
		return fmt.Errorf("dockersandbox: build image: %w", err)
	}
	out, err := exec.CommandContext(ctx, busybox, "--list").Output()
	if err != nil {
		return fmt.Errorf("dockersandbox: build image: list busybox's applets: %w", err)
	}
	applets := strings.Fields(string(out))
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeRootfs(pw, busybox, applets, uid, gid)) }()
	q := url.Values{"fromSrc": {"-"}, "repo": {repo}, "tag": {tag},
		"changes": {"LABEL io.keel.sandbox.image=busybox"}}
	resp, err := e.do(ctx, "POST", "/images/create", q, pr, "application/x-tar")
	pr.Close()
	if err != nil {
		return fmt.Errorf("dockersandbox: build image %s: %w", ref, err)
	}
	defer resp.Body.Close()
	// The engine reports progress, and failures, as a stream of JSON
	// messages after its 200.
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	for {
		var msg struct {
			Error string `json:"error"`
		}
		if err := dec.Decode(&msg); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("dockersandbox: build image %s: read the engine's answer: %w", ref, err)
		}
		if msg.Error != "" {
			return fmt.Errorf("dockersandbox: build image %s: %s", ref, msg.Error)
		}
	}
}

// splitRef splits "repo:tag"; no tag means "latest".
func splitRef(ref string) (string, string, error) {
	if ref == "" || strings.ContainsAny(ref, " @") {
		return "", "", fmt.Errorf("image name %q: write repository:tag, such as %s", ref, DefaultImage)
	}
	repo, tag := ref, "latest"
	if i := strings.LastIndexByte(ref, ':'); i > strings.LastIndexByte(ref, '/') {
		repo, tag = ref[:i], ref[i+1:]
	}
	return repo, tag, nil
}

// checkStatic refuses a binary with a program interpreter (the dynamic
// loader): it could not run in an image without one.
func checkStatic(p string) error {
	f, err := elf.Open(p)
	if err != nil {
		return fmt.Errorf("busybox %s: %w (install Debian's busybox-static)", p, err)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return fmt.Errorf("busybox %s is linked dynamically; install Debian's busybox-static", p)
		}
	}
	return nil
}

// writeRootfs writes the image's file system as a tar.
func writeRootfs(w io.Writer, busybox string, applets []string, uid, gid int) error {
	tw := tar.NewWriter(w)
	now := time.Now()
	entry := func(h *tar.Header, data []byte) error {
		h.ModTime, h.Format = now, tar.FormatPAX
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	dir := func(name string, mode int64) *tar.Header {
		return &tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: mode}
	}
	for _, h := range []*tar.Header{
		dir("bin", 0o755), dir("dev", 0o755), dir("etc", 0o755), dir("home", 0o755),
		dir("proc", 0o555), dir("root", 0o700), dir("sys", 0o555), dir("tmp", 0o1777),
		dir("usr", 0o755), dir("usr/bin", 0o755),
	} {
		if err := entry(h, nil); err != nil {
			return err
		}
	}
	home := dir("home/user", 0o700)
	home.Uid, home.Gid = uid, gid
	if err := entry(home, nil); err != nil {
		return err
	}
	passwd := "root:x:0:0:root:/root:/bin/sh\nuser:x:" + strconv.Itoa(uid) + ":" + strconv.Itoa(gid) +
		":user:" + HomeDir + ":/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"
	group := "root:x:0:\nuser:x:" + strconv.Itoa(gid) + ":\nnogroup:x:65534:\n"
	for _, f := range []struct {
		name, data string
		mode       int64
	}{{"etc/passwd", passwd, 0o644}, {"etc/group", group, 0o644}, {"bin/getconf", getconfScript, 0o755}} {
		if err := entry(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode}, []byte(f.data)); err != nil {
			return err
		}
	}
	bb, err := os.Open(busybox)
	if err != nil {
		return err
	}
	defer bb.Close()
	fi, err := bb.Stat()
	if err != nil {
		return err
	}
	h := &tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: fi.Size(), ModTime: now, Format: tar.FormatPAX}
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	if _, err := io.Copy(tw, bb); err != nil {
		return err
	}
	links := map[string]bool{"busybox": true, "getconf": true}
	for _, a := range applets {
		if links[a] || strings.ContainsRune(a, '/') {
			continue
		}
		links[a] = true
		if err := entry(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777}, nil); err != nil {
			return err
		}
	}
	if !links["sh"] {
		return errors.New("busybox has no sh applet")
	}
	if err := entry(&tar.Header{Typeflag: tar.TypeSymlink, Name: "usr/bin/env", Linkname: "/bin/busybox", Mode: 0o777}, nil); err != nil {
		return err
	}
	return tw.Close()
}

// HasImage reports whether the engine has the image ref.
func (e *Engine) HasImage(ctx context.Context, ref string) (bool, error) {
	err := e.call(ctx, "GET", "/images/"+ref+"/json", nil, nil, nil)
	switch {
	case err == nil:
		return true, nil
	case isStatus(err, 404):
		return false, nil
	}
	return false, fmt.Errorf("dockersandbox: image %s: %w", ref, err)
}
