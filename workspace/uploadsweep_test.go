package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// A part file left by an upload that was killed (kill -9 mid-write)
// would count against the quota forever: the next upload into the same
// directory removes those over an hour old, through the file system and
// through commands alike, and leaves younger ones (an upload under way)
// and other files alone.
func TestUploadSweepsStaleParts(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(workspace.Sandbox) workspace.Sandbox
	}{
		{"FileSystem", func(sb workspace.Sandbox) workspace.Sandbox { return sb }},
		{"CommandOnly", func(sb workspace.Sandbox) workspace.Sandbox { return sandboxtest.CommandOnly(sb) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sandboxtest.ReachableTempDir(t)
			sb, err := localsandbox.New(filepath.Join(dir, "sb"), localsandbox.Options{AllowUnisolated: true})
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "CommandOnly" && sb.Status().Off != nil {
				t.Skipf("commands are off here: %v", sb.Status().Off)
			}
			ctx := context.Background()
			files := map[string]time.Duration{
				"uploads/t1/" + sha64("a") + ".txt.0123abcd.part": 2 * time.Hour, // stale: removed
				"uploads/t1/" + sha64("b") + ".txt.89abcdef.part": time.Minute,   // under way: kept
				"uploads/t1/notes.part":                           2 * time.Hour, // not a part name: kept
			}
			for p, age := range files {
				if err := sb.WriteFile(ctx, p, []byte("half")); err != nil {
					t.Fatal(err)
				}
				old := time.Now().Add(-age)
				if err := os.Chtimes(filepath.Join(sb.Dir(), p), old, old); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := workspace.Upload(ctx, tc.wrap(sb), "t1", "", workspace.File{Name: "x.txt", Data: []byte("hello")}); err != nil {
				t.Fatal(err)
			}
			for p, age := range files {
				_, err := os.Stat(filepath.Join(sb.Dir(), p))
				if gone := os.IsNotExist(err); gone != (age > time.Hour && filepath.Base(p) != "notes.part") {
					t.Errorf("Got(%s, %v old) gone = %v after an upload; want only stale part files gone", filepath.Base(p), age, gone)
				}
			}
		})
	}
}

func sha64(s string) string {
	out := make([]byte, 64)
	for i := range out {
		out[i] = "0123456789abcdef"[(int(s[0])+i)%16]
	}
	return string(out)
}
