package localsandbox_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

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
