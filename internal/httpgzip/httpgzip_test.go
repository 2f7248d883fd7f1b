package httpgzip_test

import (
	"testing"

	"github.com/keel-go/keel/internal/httpgzip"
)

func TestAccepted(t *testing.T) {
	cases := []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"br, gzip", true},
		{"GZIP", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"gzip;q=0.5", true},
		{"gzip;q=1", true},
		{"*", true},
		{"deflate, br", false},
		{"identity", false},
	}
	for _, c := range cases {
		if got := httpgzip.Accepted(c.header); got != c.want {
			t.Errorf("Got(Accepted(%q)) = %v; want %v", c.header, got, c.want)
		}
	}
}
