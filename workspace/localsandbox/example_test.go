package localsandbox_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"syscall"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// A sandbox keeps files in a directory and runs commands there. Where
// bubblewrap works they run isolated; this example allows the unisolated
// fallback so that it runs anywhere.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "keel-example-")
	defer os.RemoveAll(dir)
	sb, err := localsandbox.New(dir, localsandbox.Options{
		AllowUnisolated: true,
		Logger:          slog.New(slog.DiscardHandler),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	if err := sb.WriteFile(ctx, "notes/hello.txt", []byte("hello, sandbox\n")); err != nil {
		fmt.Println(err)
		return
	}
	res, err := sb.RunCommand(ctx, workspace.Command{Line: "wc -c < notes/hello.txt; exit 3"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("exit %d: %s", res.ExitCode, res.Stdout)
	// Output:
	// exit 3: 15
}

// Paths that leave the sandbox are refused on the host side.
func ExampleSandbox_ReadFile() {
	dir, _ := os.MkdirTemp("", "keel-example-")
	defer os.RemoveAll(dir)
	sb, err := localsandbox.New(dir, localsandbox.Options{AllowUnisolated: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = sb.ReadFile(context.Background(), "../../etc/passwd")
	fmt.Println(err)
	// Output:
	// localsandbox: read file: workspace: path escapes the sandbox: path "../../etc/passwd" holds ".."
}

// A resolver gives each user a sandbox of their own, in a directory named
// after the user's ID.
func ExampleNewResolver() {
	root, _ := os.MkdirTemp("", "keel-example-")
	defer os.RemoveAll(root)
	ws := workspace.NewResolved(localsandbox.NewResolver(root, localsandbox.PerResource,
		localsandbox.Options{AllowUnisolated: true, Logger: slog.New(slog.DiscardHandler)}))

	_, err := ws.Sandbox(context.Background(), workspace.Scope{ThreadID: "t1"})
	fmt.Println(err)
	fmt.Println(localsandbox.DirName("alice@example.com"))
	// Output:
	// workspace: resolve sandbox: localsandbox: resolve: per-resource sandbox needs a resource ID: workspace: no sandbox
	// alice_example_com-ff8d9819fc0e12bf0d24892e45987e24
}

// Without bubblewrap a sandbox keeps its files, and its commands are off
// with an error that says what to install.
func ExampleSandbox_RunCommand_withoutBubblewrap() {
	dir, _ := os.MkdirTemp("", "keel-example-")
	defer os.RemoveAll(dir)
	sb, err := localsandbox.New(dir, localsandbox.Options{BwrapPath: "/nonexistent/bwrap"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	fmt.Println(sb.WriteFile(ctx, "notes.txt", []byte("kept")))
	_, err = sb.RunCommand(ctx, workspace.Command{Line: "cat notes.txt"})
	fmt.Println(err)
	// Output:
	// <nil>
	// localsandbox: sandbox commands are off: bubblewrap is not available (/nonexistent/bwrap not found); install it to run commands isolated (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)
}

// Limits and quota notes write sizes in binary units.
func ExampleSize() {
	fmt.Println(localsandbox.Size(localsandbox.DefaultDisk))
	fmt.Println(localsandbox.Size(3 << 29))
	fmt.Println(localsandbox.Size(1500000))
	// Output:
	// 2 GiB
	// 1.5 GiB
	// 1.4 MiB
}

// OpenFile reads part of a file without loading it whole, and refuses
// what is not a regular file (here a FIFO, which a plain open would wait
// on forever) without blocking.
func ExampleSandbox_OpenFile() {
	dir, _ := os.MkdirTemp("", "keel-example-")
	defer os.RemoveAll(dir)
	sb, err := localsandbox.New(dir, localsandbox.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	_ = sb.WriteFile(ctx, "log.txt", []byte("first line\nsecond line\n"))
	f, err := sb.OpenFile(ctx, "log.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	head := make([]byte, 10)
	_, _ = io.ReadFull(f, head)
	info, _ := f.Stat()
	f.Close()
	fmt.Printf("%q of %d bytes\n", head, info.Size())

	_ = syscall.Mkfifo(sb.Dir()+"/pipe", 0o644)
	_, err = sb.OpenFile(ctx, "pipe")
	fmt.Println(errors.Is(err, workspace.ErrNotRegularFile))
	// Output:
	// "first line" of 23 bytes
	// true
}
