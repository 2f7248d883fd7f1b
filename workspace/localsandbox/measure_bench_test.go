package localsandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMeasure is one measurement of a measured quota's sandbox
// holding n files in directories of 1,000: what every command pays
// before and after it, and every 250 ms while it runs.
func BenchmarkMeasure(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("%dfiles", n), func(b *testing.B) {
			dir := b.TempDir()
			for i := range n {
				sub := filepath.Join(dir, fmt.Sprintf("d%d", i/1000))
				if i%1000 == 0 {
					if err := os.Mkdir(sub, 0o755); err != nil {
						b.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%d", i)), []byte("x"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				u, err := measure(dir, DefaultFiles+1000)
				if err != nil || u.files < int64(n) {
					b.Fatalf("Got(measure) = %+v, %v; want %d files", u, err, n)
				}
			}
		})
	}
}
