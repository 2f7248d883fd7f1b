package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// BenchmarkRun measures one keel run process from start to exit against a
// zero-latency model server: process start, opening SQLite (created by
// the first iteration), building the agent, the model call(s), storing the
// turn. With a refused xlsx, the call is made twice and the file written
// to the sandbox. Allocations are the benchmark's own; the work is in the
// child process.
func BenchmarkRun(b *testing.B) {
	for _, bc := range []struct {
		name string
		file bool
	}{{"text", false}, {"refused-xlsx", true}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := googletest.Start(googletest.Options{Unsupported: []string{xlsxType}})
			defer srv.Close()
			dir := sandboxtest.ReachableTempDir(b)
			if err := os.WriteFile(filepath.Join(dir, "leads.xlsx"), xlsxBytes(), 0o644); err != nil {
				b.Fatal(err)
			}
			environ := geminiEnv(srv)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				args := []string{"run", "--new-thread", fmt.Sprintf("bench-%d", i), "Hi"}
				if bc.file {
					args = append(args, "--file", "leads.xlsx")
				}
				cmd := exec.Command(keelBin, args...)
				cmd.Dir, cmd.Env = dir, environ
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("Got(keel run) = %v; want success\n%s", err, out)
				}
			}
		})
	}
}
