package server_test

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/keel-go/keel/memory/storetest"
	"github.com/keel-go/keel/server"
)

// TestCanonicalBase64 checks the decoder on payloads of every length
// modulo 3, small and large, with a flaw put at the start, the middle and
// the end.
func TestCanonicalBase64(t *testing.T) {
	for _, size := range []int{0, 1, 2, 3, 1000, 1 << 20, 1<<20 + 1, 1<<20 + 2} {
		data := storetest.Bytes(uint64(size), size)
		enc := base64.StdEncoding.EncodeToString(data)
		if got := server.CanonicalBase64(enc); got == nil || !bytes.Equal(got, data) {
			t.Errorf("Got(CanonicalBase64(%d bytes)) = %d bytes, equal %v; want the bytes", size, len(got), bytes.Equal(got, data))
		}
		if size == 0 {
			continue
		}
		flaws := map[string]func(i int) string{
			"line break": func(i int) string { return enc[:i] + "\n" + enc[i+1:] },
			"padding":    func(i int) string { return enc[:i] + "=" + enc[i+1:] },
			"url-safe":   func(i int) string { return enc[:i] + "_" + enc[i+1:] },
		}
		var at []int
		for _, i := range []int{0, len(enc)/2 - 1, len(enc) / 2, len(enc)/2 + 1, len(enc) - 5, len(enc) - 4} {
			if i >= 0 && i < len(enc)-2 {
				at = append(at, i)
			}
		}
		for name, flaw := range flaws {
			for _, i := range at {
				if i < 0 || i >= len(enc) {
					continue
				}
				if got := server.CanonicalBase64(flaw(i)); got != nil {
					t.Errorf("Got(CanonicalBase64(%d bytes, %s at %d)) = %d bytes; want nil", size, name, i, len(got))
				}
			}
		}
		if unpadded := strings.TrimRight(enc, "="); unpadded == enc {
			continue
		} else if got := server.CanonicalBase64(unpadded); got != nil {
			t.Errorf("Got(CanonicalBase64(%d bytes unpadded)) = %d bytes; want nil", size, len(got))
		}
	}
	// Padding bits set: decodable, but not what StdEncoding writes.
	if got := server.CanonicalBase64("QR=="); got != nil {
		t.Errorf("Got(CanonicalBase64(QR==)) = %q; want nil", got)
	}
}

func BenchmarkCanonicalBase64(b *testing.B) {
	enc := base64.StdEncoding.EncodeToString(storetest.Bytes(1, 1<<20))
	b.ReportAllocs()
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if server.CanonicalBase64(enc) == nil {
			b.Fatal("not canonical")
		}
	}
}
