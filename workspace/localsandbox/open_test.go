package localsandbox_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"golang.org/x/sys/unix"
)

// OpenFile refuses, without blocking, everything but a regular file
// reached through no link, with openat2 and with the walk of kernels
// without it alike.
func TestOpenFileRefusesWhatIsNotAFile(t *testing.T) {
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			if walk {
				t.Cleanup(localsandbox.WalkWithoutOpenat2())
			}
			dir := t.TempDir()
			sb, err := localsandbox.New(filepath.Join(dir, "sb"), localsandbox.Options{})
			if err != nil {
				t.Fatal(err)
			}
			root := sb.Dir()
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(os.MkdirAll(filepath.Join(root, "d/e"), 0o755))
			must(os.WriteFile(filepath.Join(root, "d/e/f.txt"), []byte("content"), 0o644))
			must(os.WriteFile(filepath.Join(dir, "outside.txt"), []byte("secret"), 0o644))
			must(unix.Mkfifo(filepath.Join(root, "pipe"), 0o644))
			must(os.Symlink("d/e/f.txt", filepath.Join(root, "link")))
			must(os.Symlink("d", filepath.Join(root, "dlink")))
			must(os.Symlink("../outside.txt", filepath.Join(root, "up")))
			for _, tc := range []struct {
				path string
				want error
			}{
				{"d/e/f.txt", nil},
				{"./d//e/f.txt", nil},
				{"pipe", workspace.ErrNotRegularFile},
				{"d", workspace.ErrNotRegularFile},
				{"link", workspace.ErrNotRegularFile},
				{"dlink/e/f.txt", workspace.ErrNotRegularFile},
				{"up", workspace.ErrNotRegularFile},
				{"../outside.txt", workspace.ErrPathEscapes},
				{"/etc/passwd", workspace.ErrPathEscapes},
				{"missing", fs.ErrNotExist},
				{"d/e/f.txt/x", nil}, // ENOTDIR: an error of its own
			} {
				f, err := sb.OpenFile(context.Background(), tc.path)
				switch {
				case tc.path == "d/e/f.txt/x":
					if err == nil {
						t.Errorf("Got(OpenFile(%s)) a file; want an error", tc.path)
					}
				case tc.want == nil:
					if err != nil {
						t.Fatalf("Got(OpenFile(%s)) error %v; want the file", tc.path, err)
					}
					b, _ := io.ReadAll(f)
					if _, seeks := f.(io.Seeker); string(b) != "content" || !seeks {
						t.Errorf("Got(OpenFile(%s)) = %q, seeks %v; want \"content\" and a seekable file", tc.path, b, seeks)
					}
					f.Close()
				case !errors.Is(err, tc.want):
					t.Errorf("Got(OpenFile(%s)) error %v; want one wrapping %v", tc.path, err, tc.want)
				}
			}
		})
	}
}
