package main

import (
	"context"
	"errors"
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
	agentID  string
	model    string
	files    multiFlag
	thread   string
	resource string
	asJSON   bool
	stream   bool
	storage  storageFlags
	agents   agentFlags
}

// runOutput is what keel run --json prints.
type runOutput struct {
	Text         string               `json:"text"`
	FinishReason keel.FinishReason    `json:"finishReason"`
	Usage        keel.Usage           `json:"usage"`
	ThreadID     string               `json:"threadId"`
	ResourceID   string               `json:"resourceId"`
	RunID        string               `json:"runId"`
	Recoveries   []processor.Recovery `json:"recoveries"`
}

// Run runs keel run with args.
func (c *runCmd) Run(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("keel run", "keel run [flags] PROMPT", std.err)
	fs.StringVar(&c.agentID, "agent", "", "the agent to run (default: the first agent of the configuration)")
	fs.StringVar(&c.model, "model", "", "use this model instead of the agent's, such as google/gemini-2.5-flash")
	fs.Var(&c.files, "file", "a file to send with the prompt; repeat for several")
	fs.StringVar(&c.thread, "thread", "", "continue this thread (default: a new one, whose id is printed)")
	fs.StringVar(&c.resource, "resource", defaultResource, "the owner of the thread")
	fs.BoolVar(&c.asJSON, "json", false, "print {text, finishReason, usage, threadId, recoveries} as JSON (with --stream, once the run ends)")
	fs.BoolVar(&c.stream, "stream", false, "print the answer as it is written")
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
	if c.model != "" {
		if p, m, ok := strings.Cut(c.model, "/"); !ok || p == "" || m == "" {
			return usagef("--model %q: write provider/model, such as google/gemini-2.5-flash", c.model)
		}
	}
	for _, id := range []struct{ flag, v string }{{"thread", c.thread}, {"resource", c.resource}} {
		if id.v != "" && !memory.ValidID(id.v) {
			return usagef("--%s %q: use 1 to %d of A-Z a-z 0-9 . _ : -", id.flag, id.v, memory.MaxIDLength)
		}
	}
	if c.resource == "" {
		return usagef("--resource cannot be empty")
	}
	msg, err := c.message(prompt)
	if err != nil {
		return err
	}

	a, store, err := c.setup(ctx, std.err)
	if err != nil {
		return err
	}
	defer store.Close()
	if c.thread == "" {
		c.thread = memory.NewID()
	}
	opts := []agent.RunOption{agent.WithThread(c.thread), agent.WithResource(c.resource)}
	var res *agent.Result
	if c.stream {
		res, err = c.runStream(ctx, a, msg, opts, std)
	} else {
		res, err = a.Generate(ctx, []keel.Message{msg}, opts...)
	}
	if err != nil {
		return runFailure(err, c.thread)
	}
	return c.print(res, std)
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
		msg.Parts = append(msg.Parts, keel.FilePart{Data: data, MediaType: mediaTypeOf(name, data), Filename: name})
	}
	return msg, nil
}

// setup opens the store and builds the agent to run.
func (c *runCmd) setup(ctx context.Context, stderr io.Writer) (*agent.Agent, memory.Store, error) {
	f, err := c.agents.load()
	if err != nil {
		return nil, nil, err
	}
	ac, err := pickAgent(f, c.agentID)
	if err != nil {
		return nil, nil, err
	}
	if c.model != "" {
		ac.Model = c.model
	}
	store, _, err := c.storage.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	one := &config.File{Agents: []config.Agent{ac}, Server: f.Server}
	built, err := c.agents.build(one, store, newLogger(stderr, slog.LevelWarn))
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	a := built.Agents[0]
	// Fail before a thread is made for a turn no model can answer.
	if um, ok := a.Config().Model.(*config.UnavailableModel); ok {
		store.Close()
		return nil, nil, um.Err
	}
	warn(stderr, "run", built.Warnings)
	return a, store, nil
}

// pickAgent returns the agent named id, or the first one.
func pickAgent(f *config.File, id string) (config.Agent, error) {
	if id == "" {
		return f.Agents[0], nil
	}
	if a, ok := f.Agent(id); ok {
		return a, nil
	}
	ids := make([]string, len(f.Agents))
	for i, a := range f.Agents {
		ids[i] = a.ID
	}
	return config.Agent{}, usagef("--agent %q: no such agent; the agents are: %s", id, strings.Join(ids, ", "))
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
				printRecovery(std.err, ev.Recovery)
			}
		case agent.EventRetry:
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
		if out.Recoveries == nil {
			out.Recoveries = []processor.Recovery{}
		}
		return writeJSON(std.out, out)
	}
	if !c.stream {
		for _, rec := range res.Recoveries {
			printRecovery(std.err, rec)
		}
		fmt.Fprintln(std.out, res.Text)
	}
	fmt.Fprintf(std.err, "keel run: thread %s (continue it with --thread %s; show it with keel threads show %s)\n", res.ThreadID, res.ThreadID, res.ThreadID)
	return nil
}

// printRecovery tells, in a sentence, what a processor did to keep the run
// going.
func printRecovery(w io.Writer, rec processor.Recovery) {
	if len(rec.Files) == 0 {
		fmt.Fprintf(w, "keel run: %s: %s\n", rec.Processor, rec.Action)
		return
	}
	for _, f := range rec.Files {
		switch rec.Action {
		case "uploaded":
			fmt.Fprintf(w, "keel run: the model refused %s (%s); it was uploaded to the sandbox at %s\n", f.Name, f.MediaType, f.Path)
		case "placeholder":
			fmt.Fprintf(w, "keel run: the model refused %s (%s); it was left out of the prompt\n", f.Name, f.MediaType)
		default:
			fmt.Fprintf(w, "keel run: %s: %s %s (%s)\n", rec.Processor, rec.Action, f.Name, f.MediaType)
		}
	}
}

// runFailure explains a failed run and what to do next.
func runFailure(err error, threadID string) error {
	var api *keel.APICallError
	var unsup *keel.UnsupportedFunctionalityError
	var upload *processor.FileUploadError
	switch {
	case errors.Is(err, config.ErrNoModel), errors.Is(err, config.ErrModelUnavailable):
		return err
	case errors.As(err, &upload):
		return fmt.Errorf("%w (send a smaller file, or another one)", err)
	case errors.As(err, &api) && (api.StatusCode == 401 || api.StatusCode == 403):
		return fmt.Errorf("%w (check the provider's API key)", err)
	case errors.As(err, &api) && api.StatusCode == 429:
		return fmt.Errorf("%w (the provider's rate limit: try again later)", err)
	case errors.As(err, &api) && api.StatusCode == 0:
		return fmt.Errorf("%w (check the network, and the provider's base URL variable if you set one)", err)
	case errors.As(err, &api):
		return fmt.Errorf("%w (the turn is kept in thread %s: try again, or try another model with --model)", err, threadID)
	case errors.As(err, &unsup):
		return fmt.Errorf("%w (try another model with --model)", err)
	case errors.Is(err, context.Canceled):
		return errors.New("interrupted")
	}
	return err
}
