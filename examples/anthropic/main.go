// Command anthropic runs a keel agent on a Claude model: it asks a
// question, with files if given, and streams the answer to standard
// output.
//
//	export ANTHROPIC_API_KEY=...
//	go run ./examples/anthropic -model claude-sonnet-4-5 "What is in these?" report.pdf leads.xlsx
//
// The agent is config.NewAgent's, the one keel run builds, with one tool
// of its own besides the sandbox tools (list_files, read_file,
// run_command): current_time, so a question about the date or time shows
// a tool round trip. Files are sent with their media type guessed from the
// extension. Claude reads images, PDFs and plain text; the adapter refuses
// any other type before sending, and the agent's unsupported-file handler
// puts such a file in the agent's sandbox, tells the model where it is and
// gives it the file's text (a spreadsheet's cells as CSV, a document's
// paragraphs), so the answer still comes from what the file holds. Its
// sandboxes are kept in a directory, -sandbox, by default a new one
// removed at exit; commands run in bubblewrap, and without it they are off
// (the model is told so) while files still work. What keel did is printed
// on standard error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("anthropic", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "claude-sonnet-4-5", "Claude model name")
	system := fs.String("system", config.DefaultInstructions+" Be concise.", "system instructions")
	dir := fs.String("sandbox", "", "the directory that holds the sandboxes (default: a new one, removed at exit)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: anthropic [-model name] [-system text] [-sandbox dir] question [file ...]")
		return 2
	}
	m, err := anthropic.New(*model, anthropic.Options{})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "keel-example-sandbox")
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		defer os.RemoveAll(tmp)
		*dir = filepath.Join(tmp, "sandbox")
	}
	a, err := config.NewAgent(config.AgentOptions{
		Model:        m,
		Instructions: *system,
		Tools:        []tool.Tool{currentTime},
		SandboxRoot:  *dir,
		Logger:       slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	user := keel.UserText(fs.Arg(0))
	for _, path := range fs.Args()[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		user.Parts = append(user.Parts, keel.FilePart{Data: data, MediaType: keel.MediaTypeOf(path, data), Filename: filepath.Base(path)})
	}
	// The agent keeps a sandbox per resource (a user); one is named here.
	for ev, err := range a.Stream(ctx, []keel.Message{user}, agent.WithResource("example")) {
		if err != nil {
			var api *keel.APICallError
			if errors.As(err, &api) && api.StatusCode != 0 {
				fmt.Fprintf(stderr, "\nClaude answered %d %s: %s\n", api.StatusCode, api.Type, api.Message)
			} else {
				fmt.Fprintf(stderr, "\n%v\n", err)
			}
			return 1
		}
		switch ev.Type {
		case agent.EventTextDelta:
			fmt.Fprint(stdout, ev.Text)
		case agent.EventToolCall:
			fmt.Fprintf(stderr, "[tool %s %s]\n", ev.ToolCall.Name, ev.ToolCall.Input)
		case agent.EventRecovery:
			for _, f := range ev.Recovery.Files {
				switch {
				case f.Path != "":
					fmt.Fprintf(stderr, "[%s: %s %s to %s]\n", ev.Recovery.Processor, f.Outcome, f.Name, f.Path)
				case f.Reason != "":
					fmt.Fprintf(stderr, "[%s: %s %s: %s]\n", ev.Recovery.Processor, f.Outcome, f.Name, f.Reason)
				default:
					fmt.Fprintf(stderr, "[%s: %s %s]\n", ev.Recovery.Processor, f.Outcome, f.Name)
				}
			}
		case agent.EventRetry:
			fmt.Fprintf(stderr, "[retrying: %v]\n", ev.Err)
		case agent.EventFinish:
			u := ev.Result.Usage
			fmt.Fprintf(stdout, "\n[%s, %d tokens in, %d out]\n", ev.Result.FinishReason, u.InputTokens, u.OutputTokens)
		}
	}
	return 0
}

// currentTime tells the model the date and time, which it cannot know.
var currentTime = tool.Tool{
	Name:        "current_time",
	Description: "Returns the current date and time in UTC, in RFC 3339 form.",
	Execute: func(context.Context, tool.Call) (any, error) {
		return time.Now().UTC().Format(time.RFC3339), nil
	},
}
