package agent_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
)

// BenchmarkProviderFileTurn measures the second turn of a thread whose
// first message holds a 25 MB PDF, on a local Gemini server: the PDF sent
// inline (a server without the 20 MB limit, the handler without a store
// of references) or named by the reference an earlier turn stored (the
// lookup and the rewrite included, no upload). Each iteration is a thread
// of its own, stored before the timer runs, so that the PDF is always in
// the history window. It reports the bytes of the model call a turn
// sends.
func BenchmarkProviderFileTurn(b *testing.B) {
	for _, mode := range []string{"inline", "by-reference"} {
		b.Run(mode, func(b *testing.B) {
			opts := googletest.Options{PayloadLimit: 20971520}
			if mode == "inline" {
				opts.PayloadLimit = 0
			}
			srv := googletest.NewServer(b, opts)
			model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: srv.URL()})
			if err != nil {
				b.Fatal(err)
			}
			store := memory.NewInMemory()
			files := processor.UnsupportedFileOptions{BlameReadableFiles: true}
			if mode == "by-reference" {
				files.ProviderFiles = store
			}
			a, err := agent.New(agent.Config{ID: "assistant", Model: model, Memory: store, Logger: slog.New(slog.DiscardHandler), Files: files})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			first := userMsg(keel.TextPart{Text: "Summarise"}, keel.FilePart{Data: bigPDF(), MediaType: "application/pdf", Filename: "report.pdf"})
			if _, err := a.Generate(ctx, []keel.Message{first}, agent.WithThread("t1"), agent.WithResource("u")); err != nil {
				b.Fatal(err)
			}
			threads := make([]string, b.N)
			for i := range threads {
				threads[i] = fmt.Sprint("t", i+2)
				if _, _, err := store.StartThread(ctx, memory.Thread{ID: threads[i], ResourceID: "u"},
					[]keel.Message{first, {Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: "It says sales rose."}}}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := a.Generate(ctx, []keel.Message{keel.UserText("And the costs?")}, agent.WithThread(threads[i]), agent.WithResource("u"))
				if err != nil || res.Steps[0].Attempts != 1 {
					b.Fatalf("turn: %v", err)
				}
			}
			b.StopTimer()
			reqs := geminiFiles{srv}.calls()
			b.ReportMetric(float64(len(reqs[len(reqs)-1])), "request-bytes/turn")
			b.ReportMetric(float64(len(srv.Uploads())), "uploads")
		})
	}
}
