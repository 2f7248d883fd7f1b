package processor

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/keel-go/keel"
)

// TestFileDigestRemembersByContent checks that a run hashes a file once
// however often it asks, for a part given as bytes and one given as a
// data: URL alike, and that different contents never share a digest.
func TestFileDigestRemembersByContent(t *testing.T) {
	hexSum := func(b string) string { s := sha256.Sum256([]byte(b)); return hex.EncodeToString(s[:]) }
	parts := []struct {
		name string
		part keel.FilePart
		want string
	}{
		{"bytes a", keel.FilePart{Data: []byte("a"), MediaType: "text/plain"}, hexSum("a")},
		{"bytes b", keel.FilePart{Data: []byte("b"), MediaType: "text/plain"}, hexSum("b")},
		{"data URL c", keel.FilePart{URL: keel.DataURL("text/plain", []byte("c")), MediaType: "text/plain"}, hexSum("c")},
		{"data URL d", keel.FilePart{URL: keel.DataURL("text/plain", []byte("d")), MediaType: "text/plain"}, hexSum("d")},
	}
	r := NewRun("run-1", nil)
	for round := range 2 {
		for _, p := range parts {
			sum, _, err := r.fileDigest(p.part)
			if err != nil || sum != p.want {
				t.Fatalf("Got(fileDigest(%s), round %d) = %q, %v; want %q", p.name, round+1, sum, err, p.want)
			}
		}
	}
	if n := len(r.digests.known); n != len(parts) {
		t.Errorf("Got(digests remembered after asking twice for %d files) = %d; want %d, one each", len(parts), n, len(parts))
	}
}
