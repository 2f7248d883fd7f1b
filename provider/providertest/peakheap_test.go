package providertest_test

import (
	"runtime"
	"testing"

	"github.com/keel-go/keel"

	"github.com/keel-go/keel/provider/providertest"
)

// sink keeps an allocation reachable after the measured function returns,
// so the sample taken after it sees the allocation whatever the collector
// does meanwhile.
var sink []byte

func TestPeakHeap(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name     string
		alloc    int
		min, max uint64
	}{
		{"nothing", 0, 0, 4 * mib},
		{"8 MiB", 8 * mib, 8 * mib, 16 * mib},
		{"32 MiB", 32 * mib, 32 * mib, 40 * mib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() { sink = nil }()
			peak := providertest.PeakHeap(func() {
				if tc.alloc > 0 {
					sink = make([]byte, tc.alloc)
				}
			})
			if peak < tc.min || peak > tc.max {
				t.Errorf("Got(PeakHeap(alloc %d MiB)) = %.1f MiB; want between %d and %d MiB",
					tc.alloc/mib, float64(peak)/mib, tc.min/mib, tc.max/mib)
			}
		})
	}
}

func TestPeakHeapExcludesWhatCameBefore(t *testing.T) {
	before := make([]byte, 16<<20)
	peak := providertest.PeakHeap(func() {})
	if peak >= 16<<20 {
		t.Errorf("Got(PeakHeap(nothing) with 16 MiB live before) = %d; want less than 16 MiB", peak)
	}
	runtime.KeepAlive(before)
}

func TestPDF10MiB(t *testing.T) {
	a, b := providertest.PDF10MiB(), providertest.PDF10MiB()
	if len(a) != 10<<20 {
		t.Errorf("Got(len(PDF10MiB())) = %d; want %d", len(a), 10<<20)
	}
	if string(a) != string(b) {
		t.Error("Got(PDF10MiB() twice) = different bytes; want the same pattern")
	}
}

func TestPDFRequest(t *testing.T) {
	file := keel.FilePart{Data: []byte("%PDF-1.4"), MediaType: "application/pdf", Filename: "report.pdf"}
	req := providertest.PDFRequest(file)
	if len(req.Messages) != 1 || req.Messages[0].Role != keel.RoleUser || len(req.Messages[0].Parts) != 2 {
		t.Fatalf("Got(PDFRequest messages) = %+v; want one user message of two parts", req.Messages)
	}
	if got, ok := req.Messages[0].Parts[1].(keel.FilePart); !ok || got.Filename != "report.pdf" {
		t.Errorf("Got(PDFRequest part 1) = %#v; want the file", req.Messages[0].Parts[1])
	}
}
