package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// printVersion writes keel's module version, the revision it was built
// from, and the Go that built it, as the binary records them: a module
// version such as v0.3.0 for go install ...@v0.3.0, one derived from the
// repository for a build in it; the revision, its time and whether the
// tree had changes when built from a repository.
func printVersion(w io.Writer) error {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("this binary holds no build information (build it with go build or go install)")
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "keel %s", bi.Main.Version)
	if rev != "" {
		fmt.Fprintf(&b, " (revision %s", rev)
		if at != "" {
			fmt.Fprintf(&b, ", %s", at)
		}
		if modified {
			b.WriteString(", with local changes")
		}
		b.WriteString(")")
	} else {
		// go build outside a git checkout, go install of a module, or
		// -buildvcs=false leave it out: say so rather than nothing.
		b.WriteString(" (revision unknown: built without version control information)")
	}
	fmt.Fprintf(&b, " %s %s/%s\n", bi.GoVersion, runtime.GOOS, runtime.GOARCH)
	_, err := io.WriteString(w, b.String())
	return err
}
