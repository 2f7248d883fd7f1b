package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/memory/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) memory.Store {
		return open(t, filepath.Join(t.TempDir(), "keel.db"))
	})
}

// TestShared opens two stores on one file, as two processes would.
func TestShared(t *testing.T) {
	storetest.RunShared(t, func(t *testing.T) (memory.Store, memory.Store) {
		path := filepath.Join(t.TempDir(), "keel.db")
		return open(t, path), open(t, path)
	})
}

func open(t testing.TB, path string) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(path)
	if err != nil {
		t.Fatalf("Open(%q) = %v; want no error", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkThread(b *testing.B) {
	storetest.Benchmark(b, func(b *testing.B) memory.Store {
		return open(b, filepath.Join(b.TempDir(), "keel.db"))
	})
}
