package config_test

import (
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/keeltest"
)

// BenchmarkParse measures decoding and checking a two-agent keel.yaml, as
// every keel command does at start.
func BenchmarkParse(b *testing.B) {
	data := []byte(full)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := config.Parse(data, "keel.yaml"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuild measures building the default agent: the sandbox root
// checked (bubblewrap is probed once per process), tools and processors
// set up.
func BenchmarkBuild(b *testing.B) {
	opts := config.BuildOptions{
		ResolveModel: func(string) (keel.Model, error) { return keeltest.NewModel(), nil },
		DefaultModel: "google/gemini-2.5-flash",
		SandboxRoot:  b.TempDir(),
	}
	f := config.Default()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f.Build(opts); err != nil {
			b.Fatal(err)
		}
	}
}
