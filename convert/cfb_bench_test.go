package convert_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/richardlehane/mscfb"

	"github.com/keel-go/keel/convert"
)

// BenchmarkCompoundFile reads every stream of a Compound File with the
// package's reader and with github.com/richardlehane/mscfb, which the
// package does not use: a file of 300 small streams (as .msg files
// have) and a 6 MB stream (as a large .doc or .xls has).
//
//	go test -run '^$' -bench CompoundFile -benchtime 200x ./convert/
func BenchmarkCompoundFile(b *testing.B) {
	var small []*cfbNode
	for i := range 300 {
		small = append(small, stream(fmt.Sprintf("__substg1.0_%04X001F", i), bytes.Repeat([]byte{'a', 0}, 200)))
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 6<<20/16)
	files := []struct {
		name string
		data []byte
	}{
		{"300-small-streams", func() []byte { d, _ := writeCFB(b, storage("Root Entry", small...)); return d }()},
		{"one-6MB-stream", func() []byte { d, _ := writeCFB(b, storage("Root Entry", stream("WordDocument", big))); return d }()},
	}
	for _, f := range files {
		b.Run("keel/"+f.name, func(b *testing.B) {
			b.SetBytes(int64(len(f.data)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if _, err := convert.ReadCompoundFile(f.data); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
		b.Run("mscfb/"+f.name, func(b *testing.B) {
			b.SetBytes(int64(len(f.data)))
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				r, err := mscfb.New(bytes.NewReader(f.data))
				if err != nil {
					b.Fatal(err)
				}
				for e, err := r.Next(); err == nil; e, err = r.Next() {
					if _, err := io.ReadAll(e); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportCPU(b, cpu)
		})
	}
}
