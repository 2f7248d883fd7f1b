package agent_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
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

// BenchmarkNewThreadTurn measures a turn on a new thread of the
// in-memory store: the thread lookup, the input stored before the model
// call, and the reply stored.
func BenchmarkNewThreadTurn(b *testing.B) {
	model := keeltest.NewModel(keelReply{Text: "hello"})
	model.RepeatLast, model.NoRecord = true, true
	a, err := agent.New(agent.Config{ID: "bench", Model: model, Instructions: "Be brief.", Memory: memory.NewInMemory(),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	input := []keel.Message{keel.UserText("hi")}
	ctx := context.Background()
	n := 0
	thread := func() []agent.RunOption {
		n++
		return []agent.RunOption{agent.WithThread(fmt.Sprintf("t%d", n)), agent.WithResource("bench")}
	}
	b.Run("generate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.Generate(ctx, input, thread()...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, err := range a.Stream(ctx, input, thread()...) {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkRefusedFileUpload runs a whole turn whose 10 MiB xlsx is
// refused, uploaded to a local sandbox's directory and replaced by its
// note; each iteration uses a new directory so the upload really writes. Compare with
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
		sb, err := localsandbox.New(b.TempDir(), localsandbox.Options{AllowUnisolated: true, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		a, err := agent.New(agent.Config{ID: "bench", Model: model, Workspace: workspace.New(sb)})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := a.Generate(ctx, input)
		if err != nil || len(res.Recoveries) != 1 || res.Recoveries[0].Action != "uploaded" {
			b.Fatalf("Got(%v, %+v); want one upload", err, res)
		}
	}
}

// quiet drops the warning of a sandbox without bubblewrap, which would
// otherwise be logged once per iteration; the benchmark runs no commands.
var quiet = slog.New(slog.DiscardHandler)

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
