package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// usage is what keel help prints.
const usage = `keel serves agents that keep working when a model refuses a file.

Usage:
  keel serve   [--addr 127.0.0.1:4111] [--config keel.yaml] [--db PATH|postgres://URL] [--sandbox DIR]
  keel run     [--agent ID] [--model PROVIDER/MODEL] [--file PATH]... [--thread ID] [--resource ID]
               [--db ...] [--sandbox DIR] [--json] [--stream] PROMPT
  keel threads list [--resource ID] [--db ...] [--json]
  keel threads show ID [--resource ID] [--db ...] [--json]

Run "keel COMMAND -h" for a command's flags.

Environment:
  KEEL_MODEL              the default model, such as google/gemini-2.5-flash
  OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY
                          provider keys; without KEEL_MODEL the first one set picks the model
  KEEL_DATABASE_URL       storage when --db is not given (a path, or postgres://...); default ./keel.db
  KEEL_API_TOKEN          the bearer token keel serve requires; without it, it binds to loopback only
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
	case "threads":
		err = runThreads(ctx, rest, std)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usagef("unknown command %q: use serve, run or threads (keel help lists them)", name)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "keel %s: %v\n", name, err)
		return 2
	default:
		fmt.Fprintf(stderr, "keel %s: %v\n", name, err)
		return 1
	}
}

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
