package workspace_test

import (
	"context"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
)

// uploadPathRE is every path an upload may take: one shell-safe directory
// under uploads/, then the content's digest and an optional extension.
var uploadPathRE = regexp.MustCompile(`^uploads/[A-Za-z0-9][A-Za-z0-9._-]{0,99}/[0-9a-f]{64}(\.[a-z0-9]{1,16})?$`)

// FuzzUploadPath checks the upload path rules on any thread ID, resource
// ID, file name and media type: the path stays under uploads/, has no
// ".." and no character a shell reads specially, and the file lands there.
func FuzzUploadPath(f *testing.F) {
	for _, s := range [][4]string{
		{"thread-1", "user-1", "leads.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
		{"../../etc", "", "passwd", ""},
		{"", "Ünïcödé résource", "", "application/pdf"},
		{"$(rm -rf ~)", "r", "a.tar.gz", "application/gzip"},
		{"...", "..", ".bashrc", "text/plain"},
		{"", "", "x.", "image/PNG; q=1"},
		{strings.Repeat("a.", 80), "", `C:\dir\file.CSV`, ""},
		{"\x00\n", "-rf", "name.\u00e9xt", "text/csv"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, threadID, resourceID, name, mediaType string) {
		sb := keeltest.NewSandbox("fuzz")
		up, err := workspace.Upload(context.Background(), sb, threadID, resourceID, workspace.File{Name: name, MediaType: mediaType, Data: []byte("x")})
		if err != nil {
			t.Fatalf("Got(Upload(thread %q, resource %q, name %q, type %q)) error %v; want the file uploaded", threadID, resourceID, name, mediaType, err)
		}
		if !uploadPathRE.MatchString(up.RelPath) || path.Clean(up.RelPath) != up.RelPath || strings.Contains(up.RelPath, "..") {
			t.Fatalf("Got(Upload(thread %q, resource %q, name %q, type %q).RelPath) = %q; want uploads/<safe dir>/<sha256>[.ext]", threadID, resourceID, name, mediaType, up.RelPath)
		}
		if data, err := sb.ReadFile(context.Background(), up.RelPath); err != nil || string(data) != "x" {
			t.Fatalf("Got(ReadFile(%q)) = %q, %v; want the uploaded bytes", up.RelPath, data, err)
		}
		dir := workspace.UploadDir(threadID, resourceID)
		if workspace.SafeDir(dir) != dir || workspace.ShellQuote(dir) != "'"+dir+"'" {
			t.Fatalf("Got(UploadDir(%q, %q)) = %q; want a name SafeDir keeps and the shell needs no escape for", threadID, resourceID, dir)
		}
		if ext := workspace.Extension(name, mediaType); ext != "" && !strings.HasSuffix(up.RelPath, "."+ext) {
			t.Fatalf("Got(RelPath) = %q; want it to end with Extension %q", up.RelPath, ext)
		}
	})
}
