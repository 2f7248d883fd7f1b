package memory_test

import (
	"testing"

	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) memory.Store {
		s := memory.NewInMemory()
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestShared runs the shared-database cases with one value twice: an
// in-memory store's database is the value itself.
func TestShared(t *testing.T) {
	storetest.RunShared(t, func(t *testing.T) (memory.Store, memory.Store) {
		s := memory.NewInMemory()
		return s, s
	})
}

func BenchmarkThread(b *testing.B) {
	storetest.Benchmark(b, func(b *testing.B) memory.Store {
		return memory.NewInMemory()
	})
}
