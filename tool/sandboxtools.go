package tool

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/keel-go/keel/workspace"
)

// Limits of the sandbox tools.
const (
	// MaxCommandTimeout is the longest timeoutSeconds run_command accepts.
	MaxCommandTimeout = 10 * time.Minute
	// DefaultReadBytes is how much of a file read_file returns when the
	// model gives no maxBytes.
	DefaultReadBytes = 64 << 10
	// MaxReadBytes is the most read_file returns, whatever maxBytes says.
	MaxReadBytes = 1 << 20
	// MaxListEntries is the most entries list_files returns.
	MaxListEntries = 1000
)

// SandboxTools returns [RunCommand], [ReadFile] and [ListFiles].
func SandboxTools() []Tool { return []Tool{RunCommand(), ReadFile(), ListFiles()} }

// CommandOutput is the result of run_command.
type CommandOutput struct {
	ExitCode int    `json:"exitCode"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	// Truncated reports that output beyond the sandbox's cap was dropped.
	Truncated bool `json:"truncated"`
}

// RunCommand returns the "run_command" tool: it runs a shell command in the
// run's sandbox (input {"command": string, "timeoutSeconds"?: number}) and
// returns its exit code, stdout, stderr and whether output was truncated.
// A command that exits non-zero is a result, not an error; one that cannot
// run, times out or is cancelled is an error. The sandbox must be a
// [workspace.CommandRunner].
func RunCommand() Tool {
	return Tool{
		Name: "run_command",
		Description: "Run a shell command (sh -c) in the sandbox, starting in its working directory, " +
			"where uploaded files are. Returns exitCode, stdout, stderr and truncated. There is no network.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","description":"The shell command to run."},` +
			`"timeoutSeconds":{"type":"number","description":"Time limit in seconds (default: the sandbox's, at most 600)."}` +
			`},"required":["command"]}`),
		Execute: executeRunCommand,
	}
}

func executeRunCommand(ctx context.Context, call Call) (any, error) {
	var in struct {
		Command        string   `json:"command"`
		TimeoutSeconds *float64 `json:"timeoutSeconds"`
	}
	if err := decodeInput(call.Input, &in); err != nil {
		return nil, fmt.Errorf("tool: run_command: %w", err)
	}
	if strings.TrimSpace(in.Command) == "" {
		return nil, errors.New("tool: run_command: command is empty")
	}
	cmd := workspace.Command{Line: in.Command}
	if in.TimeoutSeconds != nil {
		d := time.Duration(*in.TimeoutSeconds * float64(time.Second))
		if d <= 0 || d > MaxCommandTimeout {
			return nil, fmt.Errorf("tool: run_command: timeoutSeconds must be above 0 and at most %d", int(MaxCommandTimeout/time.Second))
		}
		cmd.Timeout = d
	}
	sb, err := sandboxOf(ctx, call)
	if err != nil {
		return nil, fmt.Errorf("tool: run_command: %w", err)
	}
	r, ok := sb.(workspace.CommandRunner)
	if !ok {
		return nil, fmt.Errorf("tool: run_command: sandbox %s cannot run commands", sb.ID())
	}
	res, err := workspace.RunCommand(ctx, r, cmd)
	if err != nil {
		if res != nil && len(res.Stdout)+len(res.Stderr) > 0 {
			// What a command printed before its time ran out often tells
			// the model what to try next.
			return nil, fmt.Errorf("tool: run_command: %w; output so far: stdout %q, stderr %q",
				err, clip(res.Stdout), clip(res.Stderr))
		}
		return nil, fmt.Errorf("tool: run_command: %w", err)
	}
	return CommandOutput{
		ExitCode:  res.ExitCode,
		Stdout:    string(res.Stdout),
		Stderr:    string(res.Stderr),
		Truncated: res.Truncated,
	}, nil
}

// partialOutputMax caps each stream of output quoted in an error.
const partialOutputMax = 2048

// clip returns the last partialOutputMax bytes of out, where a command's
// latest progress is.
func clip(out []byte) string {
	return string(out[max(0, len(out)-partialOutputMax):])
}

// FileContent is the result of read_file.
type FileContent struct {
	// Path is the path as the model gave it.
	Path string `json:"path"`
	// Size is the file's whole size in bytes.
	Size int64 `json:"size"`
	// Content is the text read; empty for a binary file.
	Content string `json:"content"`
	// Truncated reports that Content is only the start of the file.
	Truncated bool `json:"truncated"`
	// Binary reports a file that is not UTF-8 text; its content is not
	// returned.
	Binary bool `json:"binary"`
	// Note explains a truncated or binary file and how to go on.
	Note string `json:"note,omitempty"`
}

// ReadFile returns the "read_file" tool: it reads a text file of the run's
// sandbox (input {"path": string, "maxBytes"?: integer}). Paths are
// relative to the sandbox's working directory, or absolute under it as
// upload notes give them. At most maxBytes (default [DefaultReadBytes], at
// most [MaxReadBytes]) are returned, cut at a character boundary, with a
// note when the file is longer; a binary file (a NUL byte or invalid UTF-8)
// gets a note instead of its content. Anything but a regular file (a
// directory, a FIFO, a link) is refused without being read. The sandbox
// must be a [workspace.FileOpener] (which reads only maxBytes of the
// file), a [workspace.FileSystem] or a [workspace.CommandRunner].
func ReadFile() Tool {
	return Tool{
		Name: "read_file",
		Description: "Read a text file in the sandbox. Paths are relative to the working directory or absolute " +
			"under it (as in upload notes). Long files are truncated and binary files are not shown; " +
			"the result says so. Use run_command for binary formats.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"The file's path."},` +
			`"maxBytes":{"type":"integer","description":"Most bytes to return (default 65536, at most 1048576)."}` +
			`},"required":["path"]}`),
		Execute: executeReadFile,
	}
}

func executeReadFile(ctx context.Context, call Call) (any, error) {
	var in struct {
		Path     string `json:"path"`
		MaxBytes *int   `json:"maxBytes"`
	}
	if err := decodeInput(call.Input, &in); err != nil {
		return nil, fmt.Errorf("tool: read_file: %w", err)
	}
	if in.Path == "" {
		return nil, errors.New("tool: read_file: path is empty")
	}
	limit := DefaultReadBytes
	if in.MaxBytes != nil {
		if *in.MaxBytes <= 0 {
			return nil, errors.New("tool: read_file: maxBytes must be above 0")
		}
		limit = min(*in.MaxBytes, MaxReadBytes)
	}
	sb, err := sandboxOf(ctx, call)
	if err != nil {
		return nil, fmt.Errorf("tool: read_file: %w", err)
	}
	rel, err := sandboxPath(sb, in.Path)
	if err != nil {
		return nil, fmt.Errorf("tool: read_file: %w", err)
	}
	head, size, err := readHead(ctx, sb, rel, limit)
	if err != nil {
		return nil, fmt.Errorf("tool: read_file: %w", err)
	}
	return describeContent(in.Path, head, size), nil
}

// readHead returns up to limit bytes of the file at rel and its size. A
// [workspace.FileOpener] reads only those bytes from the file it opened
// and described; a sandbox without one is read through its FileSystem or
// with head -c. Anything but a regular file is refused without being
// opened for reading: a FIFO would block the read forever.
func readHead(ctx context.Context, sb workspace.Sandbox, rel string, limit int) ([]byte, int64, error) {
	if op, ok := sb.(workspace.FileOpener); ok {
		f, err := op.OpenFile(ctx, rel)
		if err != nil {
			return nil, 0, notRegular(rel, err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, 0, err
		}
		head, err := io.ReadAll(io.LimitReader(f, int64(limit)))
		if err != nil {
			return nil, 0, err
		}
		return head, max(fi.Size(), int64(len(head))), nil
	}
	if fsys, ok := sb.(workspace.FileSystem); ok {
		fi, err := fsys.Stat(ctx, rel)
		if err != nil {
			return nil, 0, err
		}
		if !fi.Mode().IsRegular() {
			return nil, 0, notRegular(rel, fmt.Errorf("%w: its mode is %v", workspace.ErrNotRegularFile, fi.Mode()))
		}
		data, err := fsys.ReadFile(ctx, rel)
		if err != nil {
			return nil, 0, err
		}
		return data[:min(len(data), limit)], int64(len(data)), nil
	}
	r, ok := sb.(workspace.CommandRunner)
	if !ok {
		return nil, 0, fmt.Errorf("sandbox %s can neither read files nor run commands", sb.ID())
	}
	q := workspace.ShellQuote(rel)
	line := "if [ -d " + q + " ]; then echo " + workspace.ShellQuote(rel+" is a directory; use list_files") + " >&2; exit 2; fi; " +
		"if [ ! -f " + q + " ]; then echo " + workspace.ShellQuote(rel+" is not a regular file; use run_command") + " >&2; exit 2; fi; " +
		"wc -c < " + q + " && head -c " + strconv.Itoa(limit) + " < " + q
	res, err := workspace.RunCommand(ctx, r, workspace.Command{Line: line})
	if err != nil {
		return nil, 0, err
	}
	if res.ExitCode != 0 {
		return nil, 0, fmt.Errorf("%s", strings.TrimSpace(string(res.Stderr)))
	}
	sizeLine, head, _ := bytes.Cut(res.Stdout, []byte("\n"))
	size, err := strconv.ParseInt(strings.TrimSpace(string(sizeLine)), 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("cannot read the size of %s: %q", rel, sizeLine)
	}
	return head, size, nil
}

// notRegular adds to a refusal of something that is not a regular file
// what the model can do instead.
func notRegular(rel string, err error) error {
	if errors.Is(err, workspace.ErrNotRegularFile) {
		return fmt.Errorf("%s: %w (list_files lists a directory; run_command works on anything else)", rel, err)
	}
	return err
}

func describeContent(path string, head []byte, size int64) FileContent {
	out := FileContent{Path: path, Size: size}
	truncated := int64(len(head)) < size
	if isBinary(head, truncated) {
		out.Binary = true
		out.Note = fmt.Sprintf("binary file of %d bytes, not shown; use run_command to work on it (for example file, xxd, or a script)", size)
		return out
	}
	if truncated {
		// Cut at a character boundary so the text stays valid.
		for len(head) > 0 && !utf8.Valid(head) {
			head = head[:len(head)-1]
		}
		out.Truncated = true
		out.Note = fmt.Sprintf("showing the first %d of %d bytes; ask for more with maxBytes (at most %d) or read the rest with run_command (for example tail -c +%d)",
			len(head), size, MaxReadBytes, len(head)+1)
	}
	out.Content = string(head)
	return out
}

// isBinary reports whether head is not UTF-8 text. A cut file may end in
// the middle of a character, which does not count.
func isBinary(head []byte, truncated bool) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	if truncated {
		for i := 1; i < utf8.UTFMax && i <= len(head); i++ {
			if utf8.Valid(head[:len(head)-i]) {
				return false
			}
		}
	}
	return true
}

// DirEntry is one entry of list_files.
type DirEntry struct {
	Name string `json:"name"`
	// Kind is "file", "dir", "symlink" or "other".
	Kind string `json:"kind"`
	// Size is the size in bytes of a file; 0 for others.
	Size int64 `json:"size"`
}

// Listing is the result of list_files.
type Listing struct {
	Path    string     `json:"path"`
	Entries []DirEntry `json:"entries"`
	// Truncated reports that only the first [MaxListEntries] entries are
	// listed.
	Truncated bool `json:"truncated"`
}

// ListFiles returns the "list_files" tool: it lists a directory of the
// run's sandbox (input {"path"?: string}, default the working directory),
// sorted by name, with each entry's kind and size, at most
// [MaxListEntries]. The sandbox must be a [workspace.FileSystem].
func ListFiles() Tool {
	return Tool{
		Name: "list_files",
		Description: "List a directory in the sandbox (default: the working directory), with each entry's " +
			"kind (file, dir, symlink, other) and size in bytes.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"path":{"type":"string","description":"The directory (default: the working directory)."}` +
			`}}`),
		Execute: executeListFiles,
	}
}

func executeListFiles(ctx context.Context, call Call) (any, error) {
	var in struct {
		Path string `json:"path"`
	}
	if err := decodeInput(call.Input, &in); err != nil {
		return nil, fmt.Errorf("tool: list_files: %w", err)
	}
	sb, err := sandboxOf(ctx, call)
	if err != nil {
		return nil, fmt.Errorf("tool: list_files: %w", err)
	}
	fsys, ok := sb.(workspace.FileSystem)
	if !ok {
		return nil, fmt.Errorf("tool: list_files: sandbox %s cannot list files; use run_command with ls", sb.ID())
	}
	rel, err := sandboxPath(sb, in.Path)
	if err != nil {
		return nil, fmt.Errorf("tool: list_files: %w", err)
	}
	entries, err := fsys.ReadDir(ctx, rel)
	if err != nil {
		return nil, fmt.Errorf("tool: list_files: %w", err)
	}
	out := Listing{Path: cmp.Or(in.Path, "."), Entries: make([]DirEntry, 0, min(len(entries), MaxListEntries))}
	for i, e := range entries {
		if i == MaxListEntries {
			out.Truncated = true
			break
		}
		out.Entries = append(out.Entries, describeEntry(e))
	}
	return out, nil
}

func describeEntry(e fs.DirEntry) DirEntry {
	d := DirEntry{Name: e.Name()}
	switch t := e.Type(); {
	case t.IsDir():
		d.Kind = "dir"
	case t&fs.ModeSymlink != 0:
		d.Kind = "symlink"
	case t.IsRegular():
		d.Kind = "file"
		if fi, err := e.Info(); err == nil {
			d.Size = fi.Size()
		}
	default:
		d.Kind = "other"
	}
	return d
}

// decodeInput reads a tool's JSON input; empty input is an empty object.
func decodeInput(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("invalid input: %w", err)
	}
	return nil
}

func sandboxOf(ctx context.Context, call Call) (workspace.Sandbox, error) {
	if call.Sandbox == nil {
		return nil, workspace.ErrNoSandbox
	}
	sb, err := call.Sandbox(ctx)
	if err != nil {
		return nil, err
	}
	if sb == nil {
		return nil, workspace.ErrNoSandbox
	}
	return sb, nil
}

// sandboxPath turns a path the model gave into one relative to the
// sandbox's working directory. Models copy absolute paths from upload
// notes ("/home/user/uploads/..."), so those are accepted when they lie
// under the working directory.
func sandboxPath(sb workspace.Sandbox, p string) (string, error) {
	// A sandbox that only runs commands would follow ".." wherever its
	// commands can go; every sandbox gets the same answer instead.
	if slices.Contains(strings.Split(p, "/"), "..") {
		return "", fmt.Errorf("path %q holds \"..\": %w", p, workspace.ErrPathEscapes)
	}
	if !strings.HasPrefix(p, "/") {
		return cmp.Or(p, "."), nil
	}
	wd := ""
	if w, ok := sb.(workspace.WorkDirer); ok {
		wd = strings.TrimSuffix(w.WorkDir(), "/")
	}
	switch {
	case wd != "" && p == wd:
		return ".", nil
	case wd != "" && strings.HasPrefix(p, wd+"/"):
		return cmp.Or(strings.TrimLeft(p[len(wd)+1:], "/"), "."), nil
	}
	return "", fmt.Errorf("path %q is outside the sandbox's working directory: %w", p, workspace.ErrPathEscapes)
}
