package google_test

import (
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
)

func TestFetchesLink(t *testing.T) {
	m, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		url, mt string
		want    bool
	}{
		{"https://generativelanguage.googleapis.com/v1beta/files/abc", "application/pdf", true},
		{"https://www.youtube.com/watch?v=x", "video/mp4", true},
		{"https://www.youtube.com/watch?v=x", "text/html", false},
		{"http://generativelanguage.googleapis.com/v1beta/files/abc", "application/pdf", false},
		{"https://files.example.com/report.pdf", "application/pdf", false},
		{"https://files.example.com/photo.png", "image/png", false},
	} {
		f := keel.FilePart{URL: tt.url, MediaType: tt.mt}
		if got := keel.FetchesLink(m, f); got != tt.want {
			t.Errorf("Got(FetchesLink of %s %s) = %v; want %v", tt.url, tt.mt, got, tt.want)
		}
	}
}
