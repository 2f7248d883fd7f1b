package storetest_test

import (
	"crypto/sha256"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory/storetest"
)

func ExampleBytes() {
	a, b := storetest.Bytes(1, 1<<20), storetest.Bytes(1, 1<<20)
	c := storetest.Bytes(2, 1<<20)
	// The same seed gives the same file; another seed another file.
	fmt.Println(len(a), sha256.Sum256(a) == sha256.Sum256(b), sha256.Sum256(a) == sha256.Sum256(c))
	// Output: 1048576 true false
}

func ExampleBenchThread() {
	msgs := storetest.BenchThread(1)
	files, size := 0, 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			if f, ok := p.(keel.FilePart); ok {
				files++
				size += len(f.Data)
			}
		}
	}
	fmt.Printf("%d messages, %d files, %d MiB\n", len(msgs), files, size>>20)
	// Output: 50 messages, 5 files, 5 MiB
}
