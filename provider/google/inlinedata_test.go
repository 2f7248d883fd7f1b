package google_test

import (
	"encoding/base64"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/keel-go/keel/provider/google"
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
