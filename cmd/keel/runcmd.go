package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// maxRunFile is the largest file keel run sends; the server's body limit
// is of the same order, and a model takes far less.
const maxRunFile = 50 << 20

// runCmd is keel run: one turn of one agent, from the command line.
type runCmd struct {
	agentID   string
	model     string
	files     multiFlag
	thread    string
	newThread string
	resource  string
	asJSON    bool
	stream    bool
	storage   storageFlags
	agents    agentFlags

	// stored counts the thread's messages before the turn, to tell after
	// a failure whether the user's message was kept; -1 before the run.
	stored int
}

// runOutput is what keel run --json prints.
type runOutput struct {
	Text         string            `json:"text"`
	FinishReason keel.FinishReason `json:"finishReason"`
	Usage        keel.Usage        `json:"usage"`
	ThreadID     string            `json:"threadId"`
	ResourceID   string            `json:"resourceId"`
	RunID        string            `json:"runId"`
	// Calls counts the requests the run sent to the model's provider,
	// retries included: what the provider bills and rate-limits.
	Calls int `json:"calls"`
	// RefusedBeforeSending counts the calls the provider's SDK refused
	// before sending (a file type it will not encode); they are not in
	// Calls.
	RefusedBeforeSending int                  `json:"refusedBeforeSending"`
	Recoveries           []processor.Recovery `json:"recoveries"`
}

// Run runs keel run with args. With --json, a failure is printed on
// standard output too, as {"error": ...}.
func (c *runCmd) Run(ctx context.Context, args []string, std stdio) error {
	c.stored = -1
	err := c.run(ctx, args, std)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return c.fail(ctx, err, std)
}

func (c *runCmd) run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel run", "keel run [flags] PROMPT", std.err)
	fs.StringVar(&c.agentID, "agent", "", "the agent to run (default: the first agent of the configuration)")
	fs.StringVar(&c.model, "model", "", "use this model instead of the agent's, such as google/gemini-2.5-flash")
	fs.Var(&c.files, "file", "a file to send with the prompt; repeat for several")
	fs.StringVar(&c.thread, "thread", "", "continue this thread, which must exist (keel threads list shows them)")
	fs.StringVar(&c.newThread, "new-thread", "", "start a thread with this id (default: a new thread with a generated id, printed)")
	fs.StringVar(&c.resource, "resource", defaultResource, "the owner of the thread")
	fs.BoolVar(&c.asJSON, "json", false, "print {text, finishReason, usage, threadId, calls, refusedBeforeSending, recoveries}, or {error, ...}, as JSON "+
		"(with --stream, once the run ends); calls counts the requests sent to the provider, retries included, "+
		"refusedBeforeSending the calls its SDK refused locally")
	fs.BoolVar(&c.stream, "stream", false, "print the answer as it is written, and each retry as it waits")
	c.storage.register(fs)
	c.agents.register(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	prompt, err := c.prompt(pos, std.in)
	if err != nil {
		return err
	}
	if err := c.checkFlags(); err != nil {
		return err
	}
	msg, err := c.message(prompt)
	if err != nil {
		return err
	}

	a, store, built, err := c.setup(ctx, std.err)
	if err != nil {
		return err
	}
	defer store.Close()
	defer built.Close()
	if err := c.pickThread(ctx, store); err != nil {
		return err
	}
	opts := []agent.RunOption{agent.WithThread(c.thread), agent.WithResource(c.resource)}
	var res *agent.Result
	if c.stream {
		res, err = c.runStream(ctx, a, msg, opts, std)
	} else {
		res, err = a.Generate(ctx, []keel.Message{msg}, opts...)
	}
	if err != nil {
		c.countStored(ctx, store)
		return runFailure(err, c)
	}
	return c.print(res, std)
}

// checkFlags checks the flags that prompt and message do not.
func (c *runCmd) checkFlags() error {
	if c.model != "" {
		if p, m, ok := strings.Cut(c.model, "/"); !ok || p == "" || m == "" {
			return usagef("--model %q: write provider/model, such as google/gemini-2.5-flash", c.model)
		}
		// A missing key is the agent's answer; a model no key can make
		// work is the command line's mistake.
		if _, err := resolveModel(c.model); err != nil && !errors.Is(err, config.ErrModelUnavailable) {
			return usagef("--model %q: %v", c.model, err)
		}
	}
	if c.thread != "" && c.newThread != "" {
		return usagef("give --thread ID to continue a thread, or --new-thread ID to start one, not both")
	}
	for _, id := range []struct{ flag, v string }{{"thread", c.thread}, {"new-thread", c.newThread}, {"resource", c.resource}} {
		if id.v != "" && !memory.ValidID(id.v) {
			return usagef("--%s %q: use 1 to %d of A-Z a-z 0-9 . _ : -", id.flag, id.v, memory.MaxIDLength)
		}
	}
	if c.resource == "" {
		return usagef("--resource cannot be empty")
	}
	return nil
}

// pickThread settles the run's thread: the one --thread names, which must
// exist, a new one with the id --new-thread names, which must not, or a
// new one with a generated id. It counts the thread's messages, to tell
// after a failure whether the turn was kept.
func (c *runCmd) pickThread(ctx context.Context, store memory.Store) error {
	switch {
	case c.thread != "":
		_, err := store.GetThread(ctx, c.resource, c.thread)
		if errors.Is(err, memory.ErrNotFound) {
			return fmt.Errorf("resource %s has no thread %s: keel threads list --resource %s shows its threads; "+
				"to start a thread with that id, use --new-thread %s", c.resource, c.thread, c.resource, c.thread)
		}
		if err != nil {
			return fmt.Errorf("get thread %s: %w", c.thread, err)
		}
	case c.newThread != "":
		_, err := store.GetThread(ctx, c.resource, c.newThread)
		if err == nil {
			return fmt.Errorf("thread %s already exists: continue it with --thread %s, or choose another id", c.newThread, c.newThread)
		}
		if !errors.Is(err, memory.ErrNotFound) {
			return fmt.Errorf("get thread %s: %w", c.newThread, err)
		}
		c.thread = c.newThread
	default:
		c.thread = memory.NewID()
	}
	c.stored = messageCount(ctx, store, c.resource, c.thread)
	return nil
}

// messageCount returns how many messages the thread holds: 0 when it does
// not exist, -1 when the store cannot say.
func messageCount(ctx context.Context, store memory.Store, resource, thread string) int {
	page, err := store.ListMessages(ctx, resource, thread, memory.ListMessagesOptions{PerPage: 1})
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return 0
	case err != nil:
		return -1
	}
	return page.Total
}

// prompt returns the prompt: the arguments joined, or standard input for
// "-".
func (c *runCmd) prompt(pos []string, in io.Reader) (string, error) {
	if len(pos) == 1 && pos[0] == "-" {
		b, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read the prompt from standard input: %w", err)
		}
		pos = []string{string(b)}
	}
	prompt := strings.TrimSpace(strings.Join(pos, " "))
	if prompt == "" {
		return "", usagef("give a prompt, such as: keel run --file leads.xlsx \"How many leads are from Berlin?\" (or - to read it from standard input)")
	}
	return prompt, nil
}

// message builds the user's message: the prompt, then the files.
func (c *runCmd) message(prompt string) (keel.Message, error) {
	msg := keel.UserText(prompt)
	for _, path := range c.files {
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return keel.Message{}, usagef("--file %s: %v (check the path)", path, errors.Unwrap(err))
		case st.IsDir():
			return keel.Message{}, usagef("--file %s is a directory: give a file (zip the directory to send it whole)", path)
		case st.Size() > maxRunFile:
			return keel.Message{}, usagef("--file %s is %d bytes, over the %d byte limit", path, st.Size(), maxRunFile)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return keel.Message{}, fmt.Errorf("read --file %s: %w", path, err)
		}
		name := filepath.Base(path)
		msg.Parts = append(msg.Parts, keel.FilePart{Data: data, MediaType: keel.MediaTypeOf(name, data), Filename: name})
	}
	return msg, nil
}

// setup opens the store and builds the agent to run, with the MCP
// servers it names started: close the store and the Built.
func (c *runCmd) setup(ctx context.Context, stderr io.Writer) (*agent.Agent, memory.Store, *config.Built, error) {
	f, err := c.agents.load()
	if err != nil {
		return nil, nil, nil, err
	}
	i, err := pickAgent(f, c.agentID)
	if err != nil {
		return nil, nil, nil, err
	}
	if c.model != "" {
		f.Agents[i].Model = config.Model(c.model)
	}
	store, _, err := c.storage.open(ctx, true)
	if err != nil {
		return nil, nil, nil, err
	}
	built, err := c.agents.build(ctx, f, store, newLogger(stderr, slog.LevelWarn), "run", f.Agents[i].ID)
	if err != nil {
		store.Close()
		return nil, nil, nil, err
	}
	a := built.Agents[0]
	// Fail before a thread is made for a turn no model can answer.
	if um, ok := a.Config().Model.(*config.UnavailableModel); ok {
		built.Close()
		store.Close()
		return nil, nil, nil, um.Err
	}
	// One run is no start of a service: what is well is not said on
	// every run (keel serve says it at start); what is wrong is.
	printBuilt(stderr, "run", &config.Built{Warnings: built.Warnings})
	return a, store, built, nil
}

// pickAgent returns the index of the agent named id, or of the first one.
func pickAgent(f *config.File, id string) (int, error) {
	if id == "" {
		return 0, nil
	}
	ids := make([]string, len(f.Agents))
	for i, a := range f.Agents {
		if a.ID == id {
			return i, nil
		}
		ids[i] = a.ID
	}
	return 0, usagef("--agent %q: no such agent; the agents are: %s", id, strings.Join(ids, ", "))
}

// runStream runs the agent as a stream, printing text as it comes (unless
// the output is JSON) and recoveries as they happen.
func (c *runCmd) runStream(ctx context.Context, a *agent.Agent, msg keel.Message, opts []agent.RunOption, std stdio) (*agent.Result, error) {
	var res *agent.Result
	wrote := false
	for ev, err := range a.Stream(ctx, []keel.Message{msg}, opts...) {
		if err != nil {
			if wrote && !c.asJSON {
				fmt.Fprintln(std.out)
			}
			return nil, err
		}
		switch ev.Type {
		case agent.EventTextDelta:
			if !c.asJSON {
				fmt.Fprint(std.out, ev.Text)
				wrote = true
			}
		case agent.EventRecovery:
			if !c.asJSON {
				printRecoveries(std.err, "keel run: ", ev.Recovery)
			}
		case agent.EventRetry:
			fmt.Fprintf(std.err, "keel run: retrying %s after %s\n", waitText(ev.Delay), failureText(ev.Err))
			if ev.Discard && !c.asJSON {
				fmt.Fprintf(std.out, "\n[keel: the model failed and is asked again; the text above is void]\n")
			}
		case agent.EventFinish:
			res = ev.Result
		}
	}
	if wrote {
		fmt.Fprintln(std.out)
	}
	if res == nil {
		return nil, errors.New("the run ended without a result")
	}
	return res, nil
}

// print writes the result: JSON, or the text (unless streamed) with the
// recoveries and the thread on standard error.
func (c *runCmd) print(res *agent.Result, std stdio) error {
	if c.asJSON {
		out := runOutput{
			Text: res.Text, FinishReason: res.FinishReason, Usage: res.Usage,
			ThreadID: res.ThreadID, ResourceID: res.ResourceID, RunID: res.RunID,
			Recoveries: res.Recoveries,
		}
		for _, st := range res.Steps {
			out.Calls += st.Attempts
		}
		// Each SDK refusal the handler answered is one attempt that never
		// left the process; its recoveries share the cause.
		local := map[*processor.RecoveryCause]bool{}
		for _, r := range res.Recoveries {
			if r.Cause != nil && r.Cause.Kind == processor.CauseUnsupportedFunctionality {
				local[r.Cause] = true
			}
		}
		out.RefusedBeforeSending = len(local)
		out.Calls -= len(local)
		if out.Recoveries == nil {
			out.Recoveries = []processor.Recovery{}
		}
		return writeJSON(std.out, out)
	}
	if !c.stream {
		printRecoveries(std.err, "keel run: ", res.Recoveries...)
		fmt.Fprintln(std.out, res.Text)
	}
	fmt.Fprintf(std.err, "keel run: thread %s (continue it with --thread %s; show it with keel threads show %s)\n", res.ThreadID, res.ThreadID, res.ThreadID)
	return nil
}
