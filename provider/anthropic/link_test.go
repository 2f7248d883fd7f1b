package anthropic_test

import (
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/anthropic"
)

func TestFetchesLink(t *testing.T) {
	m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "k", BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		mt   string
		want bool
	}{
		{"image/jpeg", true}, {"image/webp", true}, {"application/pdf", true},
		{"text/plain", false}, {"text/csv", false}, {"image/svg+xml", false},
	} {
		f := keel.FilePart{URL: "https://files.example.com/f", MediaType: tt.mt}
		if got := keel.FetchesLink(m, f); got != tt.want {
			t.Errorf("Got(FetchesLink of %s) = %v; want %v", tt.mt, got, tt.want)
		}
	}
	if keel.FetchesLink(m, keel.FilePart{URL: "data:image/png;base64,AA==", MediaType: "image/png"}) {
		t.Errorf("Got(FetchesLink of a data: URL) = true; want false")
	}
}
