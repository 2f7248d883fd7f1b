// Command google asks a Gemini model a question, with files if given, and
// streams the answer to standard output.
//
//	export GOOGLE_GENERATIVE_AI_API_KEY=...   # or GEMINI_API_KEY
//	go run ./examples/google -model gemini-2.5-flash "What is in this report?" report.pdf
//
// Files are sent inline with their media type guessed from the extension.
// A type Gemini does not read comes back as the API's own error, which is
// printed with its status.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/keel-go/keel"
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
	system := fs.String("system", "You are a helpful assistant. Be concise.", "system instructions")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: google [-model name] [-system text] question [file ...]")
		return 2
	}
	m, err := google.New(*model, google.Options{})
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
		user.Parts = append(user.Parts, keel.FilePart{
			Data: data, MediaType: mediaType(path), Filename: filepath.Base(path),
		})
	}
	req := &keel.Request{Messages: []keel.Message{keel.SystemText(*system), user}}
	for ev, err := range m.Stream(ctx, req) {
		if err != nil {
			var api *keel.APICallError
			if errors.As(err, &api) && api.StatusCode != 0 {
				fmt.Fprintf(stderr, "\nGemini answered %d %s: %s\n", api.StatusCode, api.Type, api.Message)
			} else {
				fmt.Fprintf(stderr, "\n%v\n", err)
			}
			return 1
		}
		switch ev.Type {
		case keel.EventTextDelta:
			fmt.Fprint(stdout, ev.Text)
		case keel.EventFinish:
			fmt.Fprintf(stdout, "\n[%s, %d tokens in, %d out]\n", ev.FinishReason, ev.Usage.InputTokens, ev.Usage.OutputTokens)
		}
	}
	return 0
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
}

func mediaType(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if t, ok := officeTypes[ext]; ok {
		return t
	}
	return mime.TypeByExtension(ext)
}
