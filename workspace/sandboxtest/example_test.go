package sandboxtest_test

import (
	"fmt"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// CommandOnly hides a sandbox's file capability; a sandbox that cannot run
// commands is left with no capability at all, which is how tests reach
// workspace.ErrNoWriteCapability.
func ExampleCommandOnly() {
	sb := sandboxtest.CommandOnly(keeltest.NewSandbox("files-only"))
	_, canWrite := sb.(workspace.FileSystem)
	_, canRun := sb.(workspace.CommandRunner)
	fmt.Println(sb.ID(), canWrite, canRun)
	// Output:
	// files-only false false
}
