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

func BenchmarkThread(b *testing.B) {
	storetest.Benchmark(b, func(b *testing.B) memory.Store {
		return memory.NewInMemory()
	})
}
