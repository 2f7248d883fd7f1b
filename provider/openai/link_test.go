package openai_test

import (
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/openai"
)

func TestFetchesLink(t *testing.T) {
	link := func(mt string) keel.FilePart { return keel.FilePart{URL: "https://files.example.com/f", MediaType: mt} }
	newModel := func(opts openai.Options) *openai.Model {
		opts.APIKey, opts.BaseURL = "k", "http://127.0.0.1:1/v1"
		m, err := openai.New("gpt-4o-mini", opts)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	chat := newModel(openai.Options{})
	resp := newModel(openai.Options{API: openai.APIResponses, OnlyPDFDocuments: true})
	pass := newModel(openai.Options{API: openai.APIResponses})
	compat := newModel(openai.Options{ProviderName: "local"})
	tests := []struct {
		name string
		m    *openai.Model
		f    keel.FilePart
		want bool
	}{
		{"chat image", chat, link("image/png"), true},
		{"chat PDF", chat, link("application/pdf"), false},
		{"chat audio", chat, link("audio/wav"), false},
		{"chat inline image", chat, keel.FilePart{Data: []byte("x"), MediaType: "image/png"}, false},
		{"responses PDF", resp, link("application/pdf"), true},
		{"responses xlsx", resp, link("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), false},
		{"pass-through xlsx", pass, link("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"), true},
		{"pass-through video", pass, link("video/mp4"), false},
		{"compatible server image", compat, link("image/png"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keel.FetchesLink(tt.m, tt.f); got != tt.want {
				t.Errorf("Got(FetchesLink) = %v; want %v", got, tt.want)
			}
		})
	}
}
