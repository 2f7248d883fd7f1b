package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/provider"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/openai"
)

// usage is what keel help prints: the commands, and every environment
// variable keel reads.
var usage = `keel serves agents that keep working when a model refuses a file.

Usage:
  keel serve [flags]              serve the agents over HTTP (the API Mastra's client speaks)
  keel run [flags] PROMPT         send one turn to an agent and print the answer
  keel mcp [flags]                offer the agents as MCP tools (ask_AGENT) on standard input and
                                  output, for a client that starts keel (Claude Desktop, an IDE)
  keel threads list [flags]       list a resource's threads
  keel threads show [flags] ID    show a thread's messages and files
  keel threads delete [flags] ID  delete a thread and the files uploaded for it
  keel refusals list [flags]      list the file types each model is remembered to refuse
  keel refusals forget [flags] PROVIDER[/MODEL] [MEDIA-TYPE]
                                  forget them (--all: every entry)
  keel version                    print keel's version and the revision it was built from

Run "keel COMMAND -h" for a command's flags ("keel threads -h" for the threads commands).

Environment:
  ` + provider.EnvModel + `                      the default model, such as google/gemini-2.5-flash; without it,
                                  the first provider whose key is set picks its default model
  ` + openai.EnvAPIKey + `                  OpenAI's API key (OPENAI_ORG_ID and OPENAI_PROJECT_ID too, if set)
  ` + anthropic.EnvAPIKey + `               Anthropic's API key
  ` + google.EnvAPIKey + `    Gemini's API key (else ` + google.EnvGoogleAPIKey + `, else ` + google.EnvGeminiAPIKey + `)
  ` + openai.EnvCompatibleAPIKey + `       the key of an OpenAI-compatible server, if it needs one
  ` + openai.EnvBaseURL + `, ` + anthropic.EnvBaseURL + `, ` + google.EnvBaseURL + `
                                  another address for a provider's API, such as a gateway
  ` + openai.EnvCompatibleBaseURL + `      the base URL of an OpenAI-compatible server (model openai-compatible/NAME),
                                  such as http://localhost:11434/v1
  ` + envDatabaseURL + `               storage when --db is not given: a SQLite file or a postgres:// URL;
                                  default ./` + defaultDB + `
  ` + config.DefaultTokenEnv + `                  the shared bearer token keel serve requires (keel.yaml's
                                  server.auth.tokenEnv may name another variable); its holders may act
                                  for any resource. Without it or a JWT key, keel serve listens on loopback only
  ` + config.DefaultJWTSecretEnv + `                 per-user tokens: the HS256 secret (32 bytes or more) of users' JWTs;
                                  each user acts for its token's sub only
  ` + config.JWKSEnv + `                   per-user tokens: the issuer's JWKS (RS256, ES256, EdDSA), a URL or a file
  ` + config.CORSOriginsEnv + `               browser origins allowed to call keel serve, comma-separated
`

// stdio are a command's standard streams.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// errUsage marks a mistake in the command line: the exit code is 2.
var errUsage = errors.New("usage")

// usageError is a command-line mistake and what to type instead.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Is(target error) bool {
	return target == errUsage
}

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// run runs the keel command line args and returns the exit code: 0 on
// success, 1 when the command failed, 2 for a mistake in the command line.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	std := stdio{in: stdin, out: stdout, err: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	name, rest := args[0], args[1:]
	switch name {
	case "serve":
		err = (&serveCmd{}).Run(ctx, rest, std)
	case "run":
		err = (&runCmd{}).Run(ctx, rest, std)
	case "mcp":
		err = (&mcpCmd{}).Run(ctx, rest, std)
	case "threads":
		err = runThreads(ctx, rest, std)
	case "refusals":
		err = runRefusals(ctx, rest, std)
	case "version", "-version", "--version":
		if len(rest) > 0 {
			err = usagef("unexpected %q: keel version takes nothing more", rest[0])
			break
		}
		err = printVersion(stdout)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usagef("unknown command %q: use serve, run, mcp, threads, refusals or version (keel help lists them)", name)
	}
	var printed *printedError
	if err != nil && !errors.Is(err, flag.ErrHelp) && !errors.As(err, &printed) {
		fmt.Fprintf(stderr, "keel %s: %v\n", name, err)
	}
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	if sig, ok := interrupted(ctx); ok {
		return sig.exitCode()
	}
	return 1
}

// printedError is a failure the command has already told the user about,
// in its own way (keel run --json prints it as JSON).
type printedError struct{ err error }

func (e *printedError) Error() string { return e.err.Error() }
func (e *printedError) Unwrap() error { return e.err }

// parseInterspersed parses flags wherever they are among args, so that
// "keel run PROMPT --json" works like "keel run --json PROMPT", and
// returns the other arguments in order. "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &usageError{msg: err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse stops at the first non-flag, or consumes "--": tell them
		// apart by what precedes the rest.
		consumed := args[:len(args)-len(rest)]
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// newFlagSet returns a flag set that reports errors instead of exiting
// and prints its help to w.
func newFlagSet(name, synopsis string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "Usage: %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// multiFlag collects the values of a flag given several times.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}
