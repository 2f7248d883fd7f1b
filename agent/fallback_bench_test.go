package agent_test

import (
	"context"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
)

// BenchmarkFallbackFirstModel measures what a list of models costs a turn
// the first model answers, against one model: the same scripted model,
// the default processors, text only.
func BenchmarkFallbackFirstModel(b *testing.B) {
	answer := func(name string) named {
		m := keeltest.NewModel(keelReply{Text: "hello"})
		m.RepeatLast, m.NoRecord = true, true
		return named{m, name}
	}
	first := answer("first")
	configs := []struct {
		name string
		cfg  agent.Config
	}{
		{"one model", agent.Config{Model: first}},
		{"list of three", agent.Config{Models: []agent.ModelEntry{{Model: first}, {Model: answer("second")}, {Model: answer("third")}}}},
	}
	input := []keel.Message{keel.UserText("hi")}
	ctx := context.Background()
	for _, c := range configs {
		c.cfg.ID, c.cfg.Instructions = "bench", "Be brief."
		a, err := agent.New(c.cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/generate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Generate(ctx, input); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/stream", func(b *testing.B) {
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
}
