package google_test

import (
	"context"
	"encoding/base64"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/providertest"
)

// TestLargeFileMemory checks a 10 MiB inline PDF costs well under the
// 40 MiB of extra heap a request may take: its base64 is written into the
// body as it is sent, never held whole.
func TestLargeFileMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 13 MiB through a local server; skipped with -short")
	}
	var read atomic.Int64
	m := newModel(t, discardServer(t, &read).URL)
	pdf := make([]byte, 10<<20)
	req := &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
		keel.FilePart{Data: pdf, MediaType: "application/pdf"},
	}}}}
	var err error
	peak := providertest.PeakHeap(func() { _, err = m.Generate(context.Background(), req) })
	if err != nil {
		t.Fatal(err)
	}
	if limit := uint64(40 << 20); peak > limit {
		t.Errorf("Got(peak extra heap) = %d MiB; want at most %d MiB", peak>>20, limit>>20)
	}
	if min := int64(base64.StdEncoding.EncodedLen(len(pdf))); read.Load() < min {
		t.Errorf("Got(body bytes) = %d; want more than the file's base64, %d", read.Load(), min)
	}
}
