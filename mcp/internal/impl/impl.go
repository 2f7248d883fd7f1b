// Package impl says who keel is in an MCP handshake, for its client and
// its server alike.
package impl

import (
	"runtime/debug"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// module is keel's module path, looked for in the binary's build
// information.
const module = "github.com/keel-go/keel"

// Keel returns keel's name and version as the binary records them: the
// module version of keel in a program that depends on it, keel's own in
// keel's binary, "(devel)" when the build says none.
func Keel() *sdk.Implementation {
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == module && bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == module && d.Version != "" {
				version = d.Version
			}
		}
	}
	return &sdk.Implementation{Name: "keel", Title: "keel", Version: version}
}
