package workspace

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/keel-go/keel/observe"
)

// MaxUploadSize is the largest file, in decoded bytes, that [Upload]
// writes: 10 MiB.
const MaxUploadSize = 10 << 20

// maxChunkChars caps the base64 text sent in one command. Linux refuses a
// single argument over 128 KiB (MAX_ARG_STRLEN), and sh -c receives the
// whole command line as one argument; a multiple of 4 lets every chunk be
// decoded on its own.
const maxChunkChars = 96_000

// chunkBytes is how many bytes of the file one command carries.
const chunkBytes = maxChunkChars / 4 * 3

// cleanupTimeout bounds the removal of a half-written file, which runs even
// when the upload's context was cancelled.
const cleanupTimeout = 10 * time.Second

// File is a file to upload.
type File struct {
	// Name is the file name as the sender gave it; it may be empty. Only
	// its extension is used (see [Extension]).
	Name string
	// MediaType is the media type as sent, parameters included; it may be
	// empty. It gives the extension of a file without a name.
	MediaType string
	// Data is the decoded content. Upload never modifies or retains it.
	Data []byte
	// SHA256, when not empty, is the lower-case hex SHA-256 of Data that
	// the caller already has (such as keel.FilePart.SHA256); Upload trusts
	// it rather than hashing a large file a second time, so a wrong digest
	// misnames the file. One that is not 64 lower-case hex digits is an
	// error.
	SHA256 string
}

// Uploaded says where [Upload] put a file.
type Uploaded struct {
	// Path is the file's path as commands see it: absolute
	// (WorkDir()+"/"+RelPath) when the sandbox is a [WorkDirer], or
	// (the output of pwd)+"/"+RelPath when it runs commands without
	// telling its directory; else RelPath.
	Path string
	// RelPath is the path relative to the sandbox's working directory:
	// "uploads/<dir>/<sha256>.<ext>", or without ".<ext>" when the file
	// has no extension.
	RelPath string
	// Size is the number of bytes.
	Size int64
	// SHA256 is the lower-case hex digest of the content, which names the
	// file.
	SHA256 string
	// Written is false when the file was already in the sandbox and
	// nothing was written.
	Written bool
}

// FileTooLargeError reports a file over a size limit: [MaxUploadSize] for
// [Upload], which then writes nothing.
type FileTooLargeError struct {
	// Size is the file's size in bytes.
	Size int64
	// Limit is the largest size allowed.
	Limit int64
}

// Error returns "file is SIZE bytes, over the LIMIT byte limit"; callers
// wrap it with what they were doing.
func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("file is %d bytes, over the %d byte limit", e.Size, e.Limit)
}

// ErrNoWriteCapability reports a sandbox that is neither a [FileSystem] nor
// a [CommandRunner], so no file can be put in it.
var ErrNoWriteCapability = errors.New("workspace: sandbox can neither write files nor run commands")

// Uploader puts files into one sandbox, through its [FileSystem] or else
// its [CommandRunner]. Which of the two is decided once, by [NewUploader].
// An Uploader is safe for concurrent use when its sandbox is.
type Uploader struct {
	fsys    FileSystem
	runner  CommandRunner
	workDir string
	id      string // the sandbox's, for reports

	// askDir is set for a sandbox that runs commands but is no
	// [WorkDirer]: its working directory is asked once, with pwd, so that
	// files go where its commands run and paths are absolute.
	askDir  bool
	dirOnce sync.Mutex
	asked   bool
}

// NewUploader returns an uploader into sb. A nil sandbox gives
// [ErrNoSandbox]; one that can neither write files nor run commands gives
// [ErrNoWriteCapability].
func NewUploader(sb Sandbox) (*Uploader, error) {
	if sb == nil {
		return nil, ErrNoSandbox
	}
	u := &Uploader{id: sb.ID()}
	u.fsys, _ = sb.(FileSystem)
	u.runner, _ = sb.(CommandRunner)
	if u.fsys == nil && u.runner == nil {
		return nil, ErrNoWriteCapability
	}
	if wd, ok := sb.(WorkDirer); ok {
		u.workDir = strings.TrimSuffix(wd.WorkDir(), "/")
	} else if u.runner != nil {
		u.askDir = true
	}
	return u, nil
}

// Upload writes f to sb: it is [NewUploader] followed by
// [Uploader.Upload]. Code that uploads several files into one sandbox
// makes the Uploader once.
func Upload(ctx context.Context, sb Sandbox, threadID, resourceID string, f File) (Uploaded, error) {
	u, err := NewUploader(sb)
	if err != nil {
		return Uploaded{}, err
	}
	return u.Upload(ctx, threadID, resourceID, f)
}

// Upload writes f at uploads/<UploadDir(threadID, resourceID)>/
// <sha256>.<ext> (see [UploadDir] and [Extension]) and says where it went,
// reported as an observe.Upload op to the observer ctx carries, if any.
//
// The file is written to PATH.<8 hex>.part and renamed over PATH, so a
// reader never sees half a file and two uploads of the same file at once
// leave one intact copy. A regular file of the same size already at PATH
// is the same content, since the name is its digest: nothing is written and
// Written is false. When a step fails, the part file is removed, even if
// ctx was cancelled.
//
// A [FileSystem] sandbox gets f.Data as is, without a copy. Otherwise the
// [CommandRunner] gets the data as base64 in commands of at most 96,000
// characters of it, decoded by base64 -d inside the sandbox; every value in
// those commands is quoted with [ShellQuote], and only one chunk is encoded
// at a time.
//
// A file over [MaxUploadSize] gives an error wrapping a
// *[FileTooLargeError], and nothing is written. Errors from the sandbox are
// wrapped; errors.Is finds context.Canceled when ctx ended the upload.
func (u *Uploader) Upload(ctx context.Context, threadID, resourceID string, f File) (up Uploaded, err error) {
	if obs := observe.FromContext(ctx); obs != nil {
		op := observe.NewOp()
		*op = observe.Op{Kind: observe.Upload, Sandbox: u.id, Size: int64(len(f.Data)), ThreadID: threadID, ResourceID: resourceID}
		var span observe.Span
		ctx, span = obs.Start(ctx, op)
		defer func() {
			op.Path, op.Written = up.Path, up.Written
			span.End(err)
			observe.ReleaseOp(op)
		}()
	}
	if err := ctx.Err(); err != nil {
		return Uploaded{}, fmt.Errorf("workspace: upload: %w", err)
	}
	size := int64(len(f.Data))
	if size > MaxUploadSize {
		return Uploaded{}, fmt.Errorf("workspace: upload: %w", &FileTooLargeError{Size: size, Limit: MaxUploadSize})
	}
	digest := f.SHA256
	switch {
	case digest == "":
		sum := sha256.Sum256(f.Data)
		digest = hex.EncodeToString(sum[:])
	case !isHexDigest(digest):
		return Uploaded{}, fmt.Errorf("workspace: upload: SHA256 %q is not 64 lower-case hex digits", digest)
	}
	up = Uploaded{
		RelPath: relPath(UploadDir(threadID, resourceID), digest, Extension(f.Name, f.MediaType)),
		Size:    size,
		SHA256:  digest,
	}
	workDir, viaCommands := u.commandDir(ctx)
	up.Path = up.RelPath
	if workDir != "" {
		up.Path = workDir + "/" + up.RelPath
	}

	if u.fsys != nil && !viaCommands {
		up.Written, err = writeFS(ctx, u.fsys, up.RelPath, f.Data)
	} else {
		up.Written, err = writeCommands(ctx, u.runner, up.RelPath, f.Data)
	}
	if err != nil {
		return Uploaded{}, err
	}
	return up, nil
}

// commandDir returns the absolute directory uploads are relative to, ""
// when unknown, and whether they must be written with commands: for a
// sandbox that is no [WorkDirer] but runs commands, the directory where
// they run, asked once with pwd, since its file system's root may be
// elsewhere. A pwd that fails leaves the relative path and the file
// system, as before it was asked.
func (u *Uploader) commandDir(ctx context.Context) (string, bool) {
	if !u.askDir {
		return u.workDir, false
	}
	u.dirOnce.Lock()
	defer u.dirOnce.Unlock()
	if !u.asked {
		out, err := runCommand(ctx, u.runner, "ask", "working directory", "pwd")
		if dir := strings.TrimSpace(string(out)); err == nil && path.IsAbs(dir) && !strings.ContainsAny(dir, "\n\x00") {
			u.workDir = strings.TrimSuffix(dir, "/")
		}
		// A cancelled context may ask again on the next upload.
		u.asked = ctx.Err() == nil
	}
	return u.workDir, u.workDir != "" || u.fsys == nil
}

// isHexDigest reports whether s is a SHA-256 in lower-case hex, the only
// form that may become part of a path.
func isHexDigest(s string) bool {
	return len(s) == 2*sha256.Size && isLowerHex(s)
}

// isLowerHex reports whether s holds lower-case hex digits only.
func isLowerHex(s string) bool { return strings.TrimLeft(s, "0123456789abcdef") == "" }

// partPath names the temporary file of one upload. The random suffix keeps
// concurrent uploads of the same file from writing into each other.
func partPath(rel string) string {
	return fmt.Sprintf("%s.%08x.part", rel, rand.Uint32())
}

// cleanupContext outlives a cancelled upload, so its part file can still be
// removed, but not forever.
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// staleAge is how old a part file must be for an upload to take it for
// the leftover of one that was killed (kill -9, a crash) and remove it:
// an upload takes seconds, and nothing else would ever remove it, while it
// counts against the sandbox's quota.
const staleAge = time.Hour

// isPartName reports whether name is a part file of partPath:
// NAME.<8 hex>.part.
func isPartName(name string) bool {
	base, ok := strings.CutSuffix(name, ".part")
	return ok && len(base) >= 10 && base[len(base)-9] == '.' && isLowerHex(base[len(base)-8:])
}

// sweepParts removes the part files older than staleAge in dir. It is
// best effort: an upload does not fail for it.
func sweepParts(ctx context.Context, fsys FileSystem, dir string) {
	entries, err := fsys.ReadDir(ctx, dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !isPartName(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleAge {
			_ = fsys.Remove(ctx, path.Join(dir, e.Name()))
		}
	}
}

// writeFS puts data at rel through a FileSystem. It reports whether it
// wrote anything. Part files an upload killed before it could remove its
// own left in the directory over an hour ago are removed first.
func writeFS(ctx context.Context, fsys FileSystem, rel string, data []byte) (bool, error) {
	info, err := fsys.Stat(ctx, rel)
	switch {
	case err == nil && info.Mode().IsRegular() && info.Size() == int64(len(data)):
		return false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("workspace: upload: stat %s: %w", rel, err)
	}

	sweepParts(ctx, fsys, path.Dir(rel))
	part := partPath(rel)
	fail := func(op string, err error) (bool, error) {
		cctx, cancel := cleanupContext(ctx)
		defer cancel()
		err = fmt.Errorf("workspace: upload: %s %s: %w", op, rel, err)
		if rmErr := fsys.Remove(cctx, part); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("workspace: upload: remove %s: %w", part, rmErr))
		}
		return false, err
	}
	if err := fsys.WriteFile(ctx, part, data); err != nil {
		return fail("write", err)
	}
	if err := ctx.Err(); err != nil {
		return fail("write", err)
	}
	if err := fsys.Rename(ctx, part, rel); err != nil {
		return fail("rename", err)
	}
	return true, nil
}

// writeCommands puts data at rel through shell commands and reports
// whether it wrote anything. The first command looks for an existing copy
// and, when there is none, makes the directory and starts the part file
// with the first chunk; each further command appends a chunk; the last one
// also checks the part's size, which catches a sandbox that cut a command
// short, and renames it. A file of one chunk takes a single round trip.
func writeCommands(ctx context.Context, r CommandRunner, rel string, data []byte) (bool, error) {
	qrel, part := ShellQuote(rel), partPath(rel)
	qpart, qsize := ShellQuote(part), ShellQuote(strconv.Itoa(len(data)))
	fail := func(err error) (bool, error) {
		cctx, cancel := cleanupContext(ctx)
		defer cancel()
		if _, rmErr := runCommand(cctx, r, "remove", part, "rm -f "+qpart); rmErr != nil {
			err = errors.Join(err, rmErr)
		}
		return false, err
	}

	qdir := ShellQuote(path.Dir(rel))
	// Part files left by uploads killed over an hour ago go first.
	start := "find " + qdir + " -maxdepth 1 -type f -name '*.????????.part' -mmin +60 -exec rm -f {} + 2>/dev/null; " +
		"if [ -f " + qrel + " ] && " + sizeIs(qrel, qsize) + "; then echo " + existsMarker +
		"; else mkdir -p " + qdir + " && "
	finish := " && " + sizeIs(qpart, qsize) + " && mv -f " + qpart + " " + qrel
	chunks := max(1, (len(data)+chunkBytes-1)/chunkBytes)
	for i := range chunks {
		if err := ctx.Err(); err != nil {
			return fail(fmt.Errorf("workspace: upload: write %s: %w", rel, err))
		}
		head, tail := "", " >> "+qpart
		if i == 0 {
			head, tail = start, " > "+qpart
		}
		if i == chunks-1 {
			tail += finish
		}
		if i == 0 {
			tail += "; fi"
		}
		var line string
		if len(data) == 0 {
			line = head + ":" + tail
		} else {
			line = chunkCommand(head, data[i*chunkBytes:min((i+1)*chunkBytes, len(data))], tail)
		}
		out, err := runCommand(ctx, r, "write", rel, line)
		if err != nil {
			return fail(err)
		}
		if i == 0 && strings.TrimSpace(string(out)) == existsMarker {
			return false, nil
		}
	}
	return true, nil
}

// existsMarker is what the first upload command prints when the file is
// already in place.
const existsMarker = "exists"

// sizeIs returns a shell test that the file at qpath holds qsize bytes;
// both are quoted already. tr removes the padding some wc add.
func sizeIs(qpath, qsize string) string {
	return `[ "$(wc -c < ` + qpath + ` | tr -d ' ')" = ` + qsize + " ]"
}

// chunkCommand returns head + printf '%s' '<base64 of chunk>' | base64 -d
// + tail, encoding straight into the command's own buffer so that no other
// copy of the chunk is made. The base64 alphabet holds no single quote, so
// the chunk between single quotes is exactly its [ShellQuote].
func chunkCommand(head string, chunk []byte, tail string) string {
	const (
		opening = `printf '%s' '`
		closing = `' | base64 -d`
	)
	var b strings.Builder
	b.Grow(len(head) + len(opening) + base64.StdEncoding.EncodedLen(len(chunk)) + len(closing) + len(tail))
	b.WriteString(head)
	b.WriteString(opening)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	_, _ = enc.Write(chunk) // A strings.Builder never fails a write.
	_ = enc.Close()
	b.WriteString(closing)
	b.WriteString(tail)
	return b.String()
}

// runCommand runs line and returns its standard output. A command that
// could not run or exited non-zero is an error naming op and target.
func runCommand(ctx context.Context, r CommandRunner, op, target, line string) ([]byte, error) {
	res, err := RunCommand(ctx, r, Command{Line: line})
	if err != nil {
		return nil, fmt.Errorf("workspace: upload: %s %s: %w", op, target, err)
	}
	if res.ExitCode != 0 {
		return nil, fmt.Errorf("workspace: upload: %s %s: command exited with status %d: %s",
			op, target, res.ExitCode, firstLine(res.Stderr))
	}
	return res.Stdout, nil
}

// firstLine returns the first line of a command's error output, short
// enough for an error message.
func firstLine(stderr []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(stderr)), "\n")
	return cmp.Or(s[:min(len(s), 200)], "no error output")
}
