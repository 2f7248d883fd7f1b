package refusal_test

import (
	"slices"
	"testing"

	"github.com/keel-go/keel/provider/internal/refusal"
)

func TestSizeLimit(t *testing.T) {
	tests := []struct {
		msg  string
		want int64
	}{
		{"Request payload size exceeds the limit: 20971520 bytes.", 20971520},
		{"messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 7251404 bytes > 5242880 bytes", 5242880},
		{"File too large: 7251404 bytes > 5242880 bytes", 5242880},
		{"The file is larger than 512 MiB.", 512 << 20},
		{"maximum file size is 1.5 GB", 1_500_000_000},
		{"Upload of 2,048 KB refused", 2_048_000},
		{"exceeded the limit of 100MB", 100_000_000},
		{"model gpt-4o has 128000 tokens", 0},
		{"5 MBs", 0},
		{"3 bytesize", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := refusal.SizeLimit(refusal.Lower(tt.msg)); got != tt.want {
			t.Errorf("SizeLimit(%q) = %d; want %d", tt.msg, got, tt.want)
		}
	}
}

func TestPageLimit(t *testing.T) {
	tests := []struct {
		msg   string
		want  int64
		pages bool
	}{
		{"messages.0.content.1.pdf.source.base64.data: A maximum of 100 PDF pages may be provided.", 100, true},
		{"The document has more than 1,000 pages.", 1000, true},
		{"exceeds the limit of 100 pages", 100, true},
		{"1 page left", 1, false},
		{"100 pagesize", 0, false},
		{"See pages 3-4 of the guide", 0, false},
		{"Unknown part type: file", 0, false},
	}
	for _, tt := range tests {
		if got := refusal.PageLimit(refusal.Lower(tt.msg)); got != tt.want {
			t.Errorf("PageLimit(%q) = %d; want %d", tt.msg, got, tt.want)
		}
		if got := refusal.SaysPages(refusal.Lower(tt.msg)); got != tt.pages {
			t.Errorf("SaysPages(%q) = %v; want %v", tt.msg, got, tt.pages)
		}
	}
}

// FuzzLimits reads any text, in lower case, for a size and a page limit: never a panic,
// never a negative limit.
func FuzzLimits(f *testing.F) {
	f.Add("Request payload size exceeds the limit: 20971520 bytes.")
	f.Add("ẞẞẞ exceeds 5 MB maximum: 7251404 bytes > 5242880 bytes")
	f.Add("A maximum of 100 PDF pages may be provided.")
	f.Fuzz(func(t *testing.T, msg string) {
		msg = refusal.Lower(msg)
		if n := refusal.SizeLimit(msg); n < 0 {
			t.Errorf("SizeLimit(%q) = %d", msg, n)
		}
		if n := refusal.PageLimit(msg); n < 0 {
			t.Errorf("PageLimit(%q) = %d", msg, n)
		}
		refusal.SaysPages(msg)
	})
}

func TestLower(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"already lower", "already lower"},
		{"Unsupported MIME Type: Image/HEIC", "unsupported mime type: image/heic"},
		// Only ASCII letters change, so offsets hold: ẞ stays 3 bytes.
		{"ẞ Straße MB", "ẞ straße mb"},
	}
	for _, tt := range tests {
		got := refusal.Lower(tt.in)
		if got != tt.want || len(got) != len(tt.in) {
			t.Errorf("Lower(%q) = %q; want %q, of the same length", tt.in, got, tt.want)
		}
	}
}

func TestEach(t *testing.T) {
	tests := []struct {
		l, word string
		stop    int // stop after this many offsets; 0: never
		want    []int
	}{
		{"no such word", "file", 0, nil},
		{"file", "file", 0, []int{0}},
		{"a file, the file_1 and files", "file", 0, []int{2, 12, 23}},
		{"aaaa", "aa", 0, []int{0, 1, 2}},
		{"a file, the file_1 and files", "file", 2, []int{2, 12}},
		{"", "file", 0, nil},
	}
	for _, tt := range tests {
		var got []int
		for i := range refusal.Each(tt.l, tt.word) {
			got = append(got, i)
			if len(got) == tt.stop {
				break
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Each(%q, %q) = %v, want %v", tt.l, tt.word, got, tt.want)
		}
	}
}
