// Command google runs a keel agent on a Gemini model: it asks a question,
// with files if given, and streams the answer to standard output.
//
//	export GOOGLE_GENERATIVE_AI_API_KEY=...   # or GEMINI_API_KEY
//	go run ./examples/google -model gemini-2.5-flash "How many leads are from Berlin?" leads.xlsx
//
// Gemini refuses files of many types, a spreadsheet or a Word document
// among them (400 "Unsupported MIME type"), and now and then fails on a
// file with a 500 or 502 that names nothing. The agent's unsupported-file
// handler takes such files out of the prompt, puts them in the agent's
// sandbox and calls the model again, telling it where they are and giving
// it their text (a spreadsheet's cells as CSV, a document's paragraphs);
// with the sandbox tools (list_files, read_file, run_command) the model
// can open them there too. The agent is config.NewAgent's, the one keel
// run builds. Its sandboxes are kept in a directory, -sandbox, by default
// a new one removed at exit; commands run in bubblewrap, and without it
// they are off (the model is told so) while files still work. What keel
// did is printed on standard error.
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

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/provider/google"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("google", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "gemini-2.5-flash", "Gemini model name")
	system := fs.String("system", config.DefaultInstructions+" Be concise.", "system instructions")
	dir := fs.String("sandbox", "", "the directory that holds the sandboxes (default: a new one, removed at exit)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: google [-model name] [-system text] [-sandbox dir] question [file ...]")
		return 2
	}
	m, err := google.New(*model, google.Options{})
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
				fmt.Fprintf(stderr, "\nGemini answered %d %s: %s\n", api.StatusCode, api.Code, api.Message)
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
