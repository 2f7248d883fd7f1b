package agent_test

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
)

// BenchmarkLoopPerCall measures what the loop adds to one model call:
// prompt building, the default processors' hooks, result assembly. The
// scripted model answers at once and records nothing.
func BenchmarkLoopPerCall(b *testing.B) {
	model := keeltest.NewModel(keelReply{Text: "hello"})
	model.RepeatLast, model.NoRecord = true, true
	a, err := agent.New(agent.Config{ID: "bench", Model: model, Instructions: "Be brief."})
	if err != nil {
		b.Fatal(err)
	}
	input := []keel.Message{keel.UserText("hi")}
	ctx := context.Background()
	b.Run("generate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.Generate(ctx, input); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, err := range a.Stream(ctx, input) {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// dirSandbox is a plain directory with the FileSystem capability, so the
// upload benchmark writes to a real disk like the baseline does.
type dirSandbox struct{ root *os.Root }

func (s dirSandbox) ID() string { return "dir" }
func (s dirSandbox) WriteFile(_ context.Context, name string, data []byte) error {
	if err := s.root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return s.root.WriteFile(name, data, 0o644)
}
func (s dirSandbox) ReadFile(_ context.Context, name string) ([]byte, error) {
	return s.root.ReadFile(name)
}
func (s dirSandbox) Stat(_ context.Context, name string) (fs.FileInfo, error) {
	return s.root.Stat(name)
}
func (s dirSandbox) Rename(_ context.Context, from, to string) error { return s.root.Rename(from, to) }
func (s dirSandbox) Remove(_ context.Context, name string) error {
	err := s.root.Remove(name)
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
func (s dirSandbox) ReadDir(_ context.Context, name string) ([]fs.DirEntry, error) {
	return fs.ReadDir(s.root.FS(), name)
}

// BenchmarkRefusedFileUpload runs a whole turn whose 10 MiB xlsx is
// refused, uploaded to a directory sandbox and replaced by its note; each
// iteration uses a new directory so the upload really writes. Compare with
// BenchmarkSHA256AndWriteBaseline: hashing and writing the same bytes.
func BenchmarkRefusedFileUpload(b *testing.B) {
	data := make([]byte, 10<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	model := refusingModel("ok")
	model.RepeatLast, model.NoRecord = true, true
	input := []keel.Message{userMsg(keel.TextPart{Text: "Read"}, keel.FilePart{Data: data, MediaType: xlsxType, Filename: "big.xlsx"})}
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		root, err := os.OpenRoot(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		a, err := agent.New(agent.Config{ID: "bench", Model: model, Workspace: workspace.New(dirSandbox{root})})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := a.Generate(ctx, input)
		if err != nil || len(res.Recoveries) != 1 || res.Recoveries[0].Action != "uploaded" {
			b.Fatalf("Got(%v, %+v); want one upload", err, res)
		}
		b.StopTimer()
		root.Close()
		b.StartTimer()
	}
}

var sumSink [32]byte

func BenchmarkSHA256AndWriteBaseline(b *testing.B) {
	data := make([]byte, 10<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		sumSink = sha256.Sum256(data)
		if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
