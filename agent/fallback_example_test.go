package agent_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
)

// A list of models: the first is down, so once the stream retry gave up
// (here at once: no retries on it), the second answers.
func ExampleConfig_models() {
	down := keeltest.NewModel(keeltest.Reply{Err: &keel.APICallError{Provider: "keeltest", StatusCode: 503, Retryable: true}})
	down.RepeatLast = true
	up := keeltest.NewModel(keeltest.Reply{Text: "Hello from the second model."})
	a, err := agent.New(agent.Config{
		ID:     "assistant",
		Models: []agent.ModelEntry{{Model: named{down, "primary"}, MaxRetries: -1}, {Model: named{up, "backup"}}},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("Hi")})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
	fmt.Println("answered by", res.Model)
	// Output:
	// Hello from the second model.
	// answered by keeltest/backup
}
