package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// isolated returns a bubblewrap sandbox, skipping where bwrap cannot run
// unless CI is set (CI installs it).
func isolated(t *testing.T) *localsandbox.Sandbox {
	t.Helper()
	sb, err := localsandbox.New(sandboxtest.ReachableTempDir(t), localsandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sb.Isolated() {
		if os.Getenv("CI") != "" {
			t.Fatalf("Got(bubblewrap) unusable in CI: %v; want it installed", sb.Status().Off)
		}
		t.Skipf("bubblewrap cannot run here (%v); this test needs it", sb.Status().Off)
	}
	return sb
}

func call(t *testing.T, tl tool.Tool, sb workspace.Sandbox, input string) (any, error) {
	t.Helper()
	c := tool.Call{ID: "call-1", Input: json.RawMessage(input), ThreadID: "thread-1"}
	if sb != nil {
		c.Sandbox = func(context.Context) (workspace.Sandbox, error) { return sb, nil }
	}
	out, err := tl.Execute(context.Background(), c)
	if err == nil {
		// What the model gets must marshal.
		if _, merr := json.Marshal(out); merr != nil {
			t.Fatalf("Got(json.Marshal(%T)) error %v; want none", out, merr)
		}
	}
	return out, err
}

func TestRunCommand(t *testing.T) {
	sb := isolated(t)
	out, err := call(t, tool.RunCommand(), sb, `{"command":"echo hi; echo oops >&2; exit 3"}`)
	if err != nil {
		t.Fatalf("Got(run_command) error %v; want none", err)
	}
	want := tool.CommandOutput{ExitCode: 3, Stdout: "hi\n", Stderr: "oops\n"}
	if got := out.(tool.CommandOutput); got != want {
		t.Errorf("Got(run_command) = %+v; want %+v", got, want)
	}
	_, err = call(t, tool.RunCommand(), sb, `{"command":"echo started; sleep 5","timeoutSeconds":0.5}`)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `stdout "started\n"`) {
		t.Errorf("Got(run_command sleep 5 with 0.5s) error %v; want context.DeadlineExceeded with the output so far", err)
	}
}

// TestRunCommandWithoutBwrap: the model's run_command is answered with the
// sandbox's own reason and what to install.
func TestRunCommandWithoutBwrap(t *testing.T) {
	sb, err := localsandbox.New(t.TempDir(), localsandbox.Options{BwrapPath: "/nonexistent/bwrap"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, tool.RunCommand(), sb, `{"command":"true"}`)
	var ie *localsandbox.IsolationError
	if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "tool: run_command: localsandbox: sandbox commands are off: bubblewrap is not available") ||
		!strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Errorf("Got(run_command without bwrap) error %v; want the sandbox's reason and how to install bubblewrap", err)
	}
	// Files still work for the other tools.
	if err := sb.WriteFile(context.Background(), "a.txt", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	out, err := call(t, tool.ReadFile(), sb, `{"path":"/home/user/a.txt"}`)
	if err != nil || out.(tool.FileContent).Content != "hello" {
		t.Errorf("Got(read_file without bwrap) = %+v, %v; want the file", out, err)
	}
}

func TestRunCommandRefuses(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	for _, tc := range []struct {
		name  string
		sb    workspace.Sandbox
		input string
		want  string
	}{
		{"empty command", mem, `{"command":"  "}`, "command is empty"},
		{"bad json", mem, `{"command":`, "invalid input"},
		{"negative timeout", mem, `{"command":"true","timeoutSeconds":-1}`, "timeoutSeconds"},
		{"long timeout", mem, `{"command":"true","timeoutSeconds":601}`, "timeoutSeconds"},
		{"no sandbox", nil, `{"command":"true"}`, "no sandbox"},
		{"file-only sandbox", mem, `{"command":"true"}`, "cannot run commands"},
	} {
		_, err := call(t, tool.RunCommand(), tc.sb, tc.input)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "tool: run_command: ") {
			t.Errorf("Got(%s: run_command(%s)) error %v; want one saying %q", tc.name, tc.input, err, tc.want)
		}
	}
}

// readers are the ways read_file reaches a file: a file system, or
// commands only. A way that cannot be had here is nil, and skip says why.
func readers(t *testing.T) (ways map[string]workspace.Sandbox, skip string) {
	mem := keeltest.NewSandbox("mem")
	out := map[string]workspace.Sandbox{"filesystem": mem}
	files := map[string][]byte{
		"notes.txt":         []byte("hello, sandbox\n"),
		"accents.txt":       []byte("héllo wörld"),
		"data.bin":          {0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0xff},
		"latin1.txt":        {'c', 'a', 'f', 0xe9},
		"dir/inner.txt":     []byte("inner"),
		"uploads/t/abc.csv": []byte("a,b\n1,2\n"),
	}
	for name, data := range files {
		if err := mem.WriteFile(context.Background(), name, data); err != nil {
			t.Fatal(err)
		}
	}
	if st := localsandbox.Check(sandboxtest.ReachableTempDir(t), localsandbox.Options{}); !st.Isolated && os.Getenv("CI") == "" {
		out["commands"] = nil
		skip = fmt.Sprintf("bubblewrap cannot run here (%v): read_file through commands is not checked; set CI=true to fail instead", st.Off)
	} else {
		sb := isolated(t)
		for name, data := range files {
			if err := sb.WriteFile(context.Background(), name, data); err != nil {
				t.Fatal(err)
			}
		}
		out["commands"] = sandboxtest.CommandOnly(sb)
	}
	return out, skip
}

func TestReadFile(t *testing.T) {
	ways, skip := readers(t)
	for kind, sb := range ways {
		t.Run(kind, func(t *testing.T) {
			if sb == nil {
				t.Skip(skip)
			}
			for _, tc := range []struct {
				input string
				want  tool.FileContent
			}{
				{`{"path":"notes.txt"}`, tool.FileContent{Path: "notes.txt", Size: 15, Content: "hello, sandbox\n"}},
				{`{"path":"/home/user/uploads/t/abc.csv"}`, tool.FileContent{Path: "/home/user/uploads/t/abc.csv", Size: 8, Content: "a,b\n1,2\n"}},
				{`{"path":"accents.txt","maxBytes":2}`, tool.FileContent{Path: "accents.txt", Size: 13, Content: "h", Truncated: true}},
				{`{"path":"accents.txt","maxBytes":3}`, tool.FileContent{Path: "accents.txt", Size: 13, Content: "hé", Truncated: true}},
				{`{"path":"data.bin"}`, tool.FileContent{Path: "data.bin", Size: 7, Binary: true}},
				{`{"path":"latin1.txt"}`, tool.FileContent{Path: "latin1.txt", Size: 4, Binary: true}},
			} {
				out, err := call(t, tool.ReadFile(), sb, tc.input)
				if err != nil {
					t.Errorf("Got(read_file(%s)) error %v; want none", tc.input, err)
					continue
				}
				got := out.(tool.FileContent)
				if (got.Note != "") != (tc.want.Truncated || tc.want.Binary) {
					t.Errorf("Got(read_file(%s).Note) = %q; want a note exactly when truncated or binary", tc.input, got.Note)
				}
				got.Note = ""
				if got != tc.want {
					t.Errorf("Got(read_file(%s)) = %+v; want %+v", tc.input, got, tc.want)
				}
			}
			for _, tc := range []struct {
				input string
				is    error
				want  string
			}{
				{`{"path":"missing.txt"}`, nil, "missing.txt"},
				{`{"path":"/etc/passwd"}`, workspace.ErrPathEscapes, ""},
				{`{"path":"../x"}`, workspace.ErrPathEscapes, ""},
				{`{"path":"/home/user/../../etc/passwd"}`, workspace.ErrPathEscapes, ""},
				{`{"path":"dir"}`, nil, "directory"},
				{`{"path":""}`, nil, "path is empty"},
				{`{"path":"notes.txt","maxBytes":0}`, nil, "maxBytes"},
			} {
				_, err := call(t, tool.ReadFile(), sb, tc.input)
				if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Got(read_file(%s)) error %v; want one (%v, %q)", tc.input, err, tc.is, tc.want)
				}
			}
		})
	}
}

func TestReadFileMissingIsNotExist(t *testing.T) {
	_, err := call(t, tool.ReadFile(), keeltest.NewSandbox("mem"), `{"path":"missing.txt"}`)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Got(read_file(missing.txt)) error %v; want fs.ErrNotExist", err)
	}
}

func TestReadFileLong(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	long := strings.Repeat("0123456789", 20_000) // 200,000 bytes
	if err := mem.WriteFile(context.Background(), "long.txt", []byte(long)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		input string
		n     int
	}{
		{`{"path":"long.txt"}`, tool.DefaultReadBytes},
		{`{"path":"long.txt","maxBytes":100}`, 100},
		{`{"path":"long.txt","maxBytes":100000000}`, len(long)},
	} {
		out, err := call(t, tool.ReadFile(), mem, tc.input)
		if err != nil {
			t.Fatal(err)
		}
		got := out.(tool.FileContent)
		if len(got.Content) != tc.n || got.Truncated != (tc.n < len(long)) {
			t.Errorf("Got(read_file(%s)) %d bytes, truncated %v; want %d", tc.input, len(got.Content), got.Truncated, tc.n)
		}
	}
}

func TestListFiles(t *testing.T) {
	sb := isolated(t)
	ctx := context.Background()
	for name, data := range map[string]string{"b.txt": "bbb", "a.csv": "a", "sub/x": ""} {
		if err := sb.WriteFile(ctx, name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sb.RunCommand(ctx, workspace.Command{Line: "ln -s b.txt link"}); err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{`{}`, `{"path":"/home/user"}`, `{"path":"."}`} {
		out, err := call(t, tool.ListFiles(), sb, input)
		if err != nil {
			t.Fatalf("Got(list_files(%s)) error %v; want none", input, err)
		}
		got := out.(tool.Listing)
		want := []tool.DirEntry{{"a.csv", "file", 1}, {"b.txt", "file", 3}, {"link", "symlink", 0}, {"sub", "dir", 0}}
		if len(got.Entries) != len(want) || got.Truncated {
			t.Fatalf("Got(list_files(%s)) = %+v; want %+v", input, got, want)
		}
		for i := range want {
			if got.Entries[i] != want[i] {
				t.Errorf("Got(list_files(%s) entry %d) = %+v; want %+v", input, i, got.Entries[i], want[i])
			}
		}
	}
	if _, err := call(t, tool.ListFiles(), sb, `{"path":"/tmp"}`); !errors.Is(err, workspace.ErrPathEscapes) {
		t.Errorf("Got(list_files(/tmp)) error %v; want workspace.ErrPathEscapes", err)
	}
	if _, err := call(t, tool.ListFiles(), sandboxtest.CommandOnly(sb), `{}`); err == nil || !strings.Contains(err.Error(), "run_command") {
		t.Errorf("Got(list_files on a command-only sandbox) error %v; want one pointing to run_command", err)
	}
}

func TestListFilesTruncated(t *testing.T) {
	mem := keeltest.NewSandbox("mem")
	for i := range tool.MaxListEntries + 5 {
		if err := mem.WriteFile(context.Background(), "many/f"+strconv.Itoa(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	out, err := call(t, tool.ListFiles(), mem, `{"path":"many"}`)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(tool.Listing)
	if len(got.Entries) != tool.MaxListEntries || !got.Truncated {
		t.Errorf("Got(%d entries, truncated %v); want %d, true", len(got.Entries), got.Truncated, tool.MaxListEntries)
	}
}
