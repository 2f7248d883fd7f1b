package google_test

import (
	"context"
	"encoding/base64"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/providertest"
)

// TestBase64Reader checks the streaming encoder against the standard
// library for every length around the group size and any read size.
func TestBase64Reader(t *testing.T) {
	for n := range 40 {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*37 + n)
		}
		want := base64.StdEncoding.EncodeToString(src)
		for _, size := range []int{1, 2, 3, 4, 5, 7, 8, 64} {
			var got strings.Builder
			buf := make([]byte, size)
			r := google.NewBase64Reader(src)
			for {
				k, err := r.Read(buf)
				got.Write(buf[:k])
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got.String() != want {
				t.Errorf("Got(base64 of %d bytes read %d at a time) = %q; want %q", n, size, got.String(), want)
			}
		}
		if err := iotest.TestReader(google.NewBase64Reader(src), []byte(want)); err != nil {
			t.Errorf("Got(iotest of %d bytes) = %v; want nil", n, err)
		}
	}
}

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
