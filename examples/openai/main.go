// Command openai runs a keel agent on an OpenAI model, or on any
// OpenAI-compatible server: it asks a question, with files if given, and
// streams the answer to standard output.
//
//	export OPENAI_API_KEY=...
//	go run ./examples/openai -model gpt-4o-mini "What is in these?" report.pdf leads.xlsx
//	go run ./examples/openai -api responses -model gpt-5 "Summarise" leads.xlsx
//	go run ./examples/openai -provider ollama -base-url http://localhost:11434/v1 -model llama3.2 "Hi"
//
// The agent has one tool, current_time, so a question about the date or
// time shows a tool round trip. Files are sent with their media type
// guessed from the extension. Chat Completions reads images, PDFs and WAV
// or MP3 audio; the adapter refuses any other type before sending, and the
// agent's default unsupported-file handler puts a placeholder in its
// place, so the answer still comes, and the recovery is reported on
// standard error. With -api responses, spreadsheets and other documents
// go to the model as they are; -only-pdf refuses them before sending.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("openai", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "gpt-4o-mini", "model name")
	api := fs.String("api", openai.APIChat, "API to call: chat or responses")
	onlyPDF := fs.Bool("only-pdf", false, "with -api responses, refuse documents other than PDFs before sending")
	baseURL := fs.String("base-url", "", "base URL with its /v1 (default: OPENAI_BASE_URL, else OpenAI)")
	providerName := fs.String("provider", "", "name of an OpenAI-compatible server, such as ollama")
	system := fs.String("system", "You are a helpful assistant. Be concise.", "system instructions")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: openai [-model name] [-api chat|responses] [-only-pdf] [-base-url url] [-provider name] question [file ...]")
		return 2
	}
	m, err := openai.New(*model, openai.Options{
		BaseURL: *baseURL, API: *api, OnlyPDFDocuments: *onlyPDF, ProviderName: *providerName,
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	a, err := agent.New(agent.Config{
		ID:           "assistant",
		Instructions: *system,
		Model:        m,
		Tools:        []tool.Tool{currentTime},
		// The agent has no sandbox, so a refused file becomes a
		// placeholder, which the handler also logs as a warning: the
		// recoveries printed below say it already.
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError})),
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
		user.Parts = append(user.Parts, keel.FilePart{Data: data, MediaType: mediaType(path), Filename: filepath.Base(path)})
	}
	for ev, err := range a.Stream(ctx, []keel.Message{user}) {
		if err != nil {
			var apiErr *keel.APICallError
			if errors.As(err, &apiErr) && apiErr.StatusCode != 0 {
				fmt.Fprintf(stderr, "\n%s answered %d %s: %s\n", m.Provider(), apiErr.StatusCode, apiErr.Code, apiErr.Message)
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
				fmt.Fprintf(stderr, "[%s: %s %s]\n", ev.Recovery.Processor, ev.Recovery.Action, f.Name)
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

// officeTypes covers the files people send most whose types the system's
// MIME table may lack.
var officeTypes = map[string]string{
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".csv":  "text/csv",
	".md":   "text/markdown",
	".txt":  "text/plain",
	".pdf":  "application/pdf",
	".wav":  "audio/wav",
	".mp3":  "audio/mpeg",
}

func mediaType(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if t, ok := officeTypes[ext]; ok {
		return t
	}
	return mime.TypeByExtension(ext)
}
