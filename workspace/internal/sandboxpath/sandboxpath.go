// Package sandboxpath checks the paths keel gives a sandbox's file
// system, for every sandbox engine alike.
package sandboxpath

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/keel-go/keel/workspace"
)

// Clean checks a sandbox path before it reaches the file system and
// returns it cleaned: relative, forward slashes, no ".." component, no
// NUL; "" is ".". Symbolic links are left to the engine. A refused path
// wraps [workspace.ErrPathEscapes].
func Clean(name string) (string, error) {
	switch {
	case name == "":
		return ".", nil
	case strings.ContainsRune(name, 0):
		return "", fmt.Errorf("%w: path %q holds a NUL byte", workspace.ErrPathEscapes, name)
	case strings.HasPrefix(name, "/"):
		return "", fmt.Errorf("%w: path %q is not relative", workspace.ErrPathEscapes, name)
	case slices.Contains(strings.Split(name, "/"), ".."):
		return "", fmt.Errorf("%w: path %q holds \"..\"", workspace.ErrPathEscapes, name)
	}
	return path.Clean(name), nil
}
