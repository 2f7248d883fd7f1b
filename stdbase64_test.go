package keel_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/keel-go/keel"
)

// randomBytes returns n bytes that depend only on seed.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// decodeStd decodes enc with FileFromBase64, nil when it refuses it.
func decodeStd(t testing.TB, enc string) []byte {
	f, err := keel.FileFromBase64(enc, "application/pdf", "a.pdf")
	if err != nil {
		if !errors.Is(err, keel.ErrUndecodableData) {
			t.Errorf("Got(FileFromBase64 error) = %v; want one wrapping ErrUndecodableData", err)
		}
		return nil
	}
	return f.Data
}

// TestFileFromBase64 checks the decoder on payloads of every length
// modulo 3, small and large, with a flaw put at the start, the middle and
// the end.
func TestFileFromBase64(t *testing.T) {
	for _, size := range []int{0, 1, 2, 3, 1000, 1 << 20, 1<<20 + 1, 1<<20 + 2} {
		data := randomBytes(uint64(size), size)
		enc := base64.StdEncoding.EncodeToString(data)
		if got := decodeStd(t, enc); got == nil || !bytes.Equal(got, data) {
			t.Errorf("Got(FileFromBase64(%d bytes)) = %d bytes, equal %v; want the bytes", size, len(got), bytes.Equal(got, data))
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
				if i < 0 || i >= len(enc)-2 {
					continue
				}
				if got := decodeStd(t, flaw(i)); got != nil {
					t.Errorf("Got(FileFromBase64(%d bytes, %s at %d)) = %d bytes; want nil", size, name, i, len(got))
				}
			}
		}
		if unpadded := strings.TrimRight(enc, "="); unpadded == enc {
			continue
		} else if got := decodeStd(t, unpadded); got != nil {
			t.Errorf("Got(FileFromBase64(%d bytes unpadded)) = %d bytes; want nil", size, len(got))
		}
	}
	// Padding bits set: decodable, but not what StdEncoding writes.
	if got := decodeStd(t, "QR=="); got != nil {
		t.Errorf("Got(FileFromBase64(QR==)) = %q; want an error", got)
	}
	empty, err := keel.FileFromBase64("", "text/plain", "empty.txt")
	if err != nil || empty.Data == nil || len(empty.Data) != 0 || empty.MediaType != "text/plain" || empty.Filename != "empty.txt" {
		t.Errorf("Got(FileFromBase64(\"\")) = %v, %v; want an empty file, its type and name", empty, err)
	}
}

func BenchmarkFileFromBase64(b *testing.B) {
	enc := base64.StdEncoding.EncodeToString(randomBytes(1, 1<<20))
	b.ReportAllocs()
	b.SetBytes(int64(len(enc)))
	for b.Loop() {
		if _, err := keel.FileFromBase64(enc, "application/pdf", ""); err != nil {
			b.Fatal(err)
		}
	}
}
