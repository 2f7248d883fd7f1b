package config

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/tool"
)

// AgentOptions are what [NewAgent] needs. Only Model is required.
type AgentOptions struct {
	// Model answers the agent's calls. Required.
	Model keel.Model
	// ID names the agent; "" means [DefaultAgentID].
	ID string
	// Instructions are the system message of every call; "" means
	// [DefaultInstructions], which tell the model about its sandbox tools.
	Instructions string
	// Tools are the agent's own tools, given to the model after the
	// sandbox tools (run_command, read_file, list_files), which the agent
	// has either way. A tool named as one of those, or two tools with one
	// name, is an error: a model cannot tell them apart.
	Tools []tool.Tool
	// Memory keeps the agent's threads and what each model refused; nil
	// means runs have no history and every turn pays a refusal again.
	Memory memory.Store
	// SandboxRoot is the directory that holds the agent's sandboxes, one
	// per resource; "" means [DefaultSandboxRoot]. It is created if needed.
	SandboxRoot string
	// AllowUnisolated lets sandbox commands run without bubblewrap when it
	// cannot run here (they then see the whole machine). Without it, and
	// without bubblewrap, the files work and the commands are off.
	AllowUnisolated bool
	// Logger receives the agent's logs, and the warnings keel run prints
	// at start (such as sandbox commands being off); nil means
	// slog.Default().
	Logger *slog.Logger
}

// NewAgent builds one agent as keel run and keel serve build theirs
// without a keel.yaml: the [Default] agent, through [File.Build], on the
// given model. It has the sandbox tools run_command, read_file and
// list_files over a sandbox per resource (then [AgentOptions].Tools), instructions that tell the model
// of them, the converters that give the model the text of a file it
// refused (spreadsheets, documents, archives), images turned into a form
// the model takes, and refusals remembered in Memory so that a later turn
// handles a refused file before the call instead of paying a failed one.
//
// What [File.Build] would only report goes to the Logger once, at
// warning level: a sandbox whose commands are off, run unisolated, or
// have a limit nothing enforces. For every setting, build an
// [agent.Config] instead; its fields say what each one left out costs.
func NewAgent(opts AgentOptions) (*agent.Agent, error) {
	if opts.Model == nil {
		return nil, errors.New("config: new agent: AgentOptions.Model is required")
	}
	f := Default()
	a := &f.Agents[0]
	if opts.ID != "" {
		a.ID, a.Name = opts.ID, ""
	}
	if opts.Instructions != "" {
		a.Instructions = opts.Instructions
	}
	name := agent.ModelName(opts.Model)
	built, err := f.Build(BuildOptions{
		ResolveModel:    func(string) (keel.Model, error) { return opts.Model, nil },
		DefaultModel:    name,
		Memory:          opts.Memory,
		SandboxRoot:     opts.SandboxRoot,
		AllowUnisolated: opts.AllowUnisolated,
		Logger:          opts.Logger,
		extraTools:      opts.Tools,
	})
	if err != nil {
		return nil, fmt.Errorf("config: new agent: %w", err)
	}
	logger := cmp.Or(opts.Logger, slog.Default())
	for _, w := range built.Warnings {
		logger.Warn(w, "agent", a.ID)
	}
	for _, line := range built.Info {
		logger.Debug(line, "agent", a.ID)
	}
	return built.Agents[0], nil
}
