package config

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
	"github.com/keel-go/keel/workspace/localsandbox"
)

// DefaultSandboxRoot is where sandboxes are kept when
// [BuildOptions].SandboxRoot is empty, relative to the working directory.
const DefaultSandboxRoot = ".keel/sandbox"

// ErrModelUnavailable is wrapped by the errors of a
// [BuildOptions].ResolveModel that should not stop keel from starting,
// such as a missing API key: the agent is built with an
// [UnavailableModel] that answers every call with the error, and [Built]
// carries a warning.
var ErrModelUnavailable = errors.New("config: model unavailable")

// BuildOptions are what [File.Build] needs besides the file.
type BuildOptions struct {
	// ResolveModel turns a model string into a model. Required.
	ResolveModel func(model string) (keel.Model, error)
	// DefaultModel is the model string of agents that name none. When
	// empty, they get an [UnavailableModel] answering with NoModel.
	DefaultModel string
	// NoModel is the error agents without a model answer with; it should
	// say which variable to set. Nil means a generic one.
	NoModel error
	// Memory keeps the agents' threads; nil means no memory.
	Memory memory.Store
	// SandboxRoot is the directory that holds the sandboxes; "" means
	// [DefaultSandboxRoot]. It is created if needed.
	SandboxRoot string
	// AllowUnisolated lets every agent's sandbox run commands without
	// bubblewrap when it cannot run here, as if each agent set
	// sandbox.allowUnisolated. Without it, such sandboxes keep their files
	// and their commands are off.
	AllowUnisolated bool
	// BwrapPath is the bubblewrap binary; "" looks "bwrap" up in PATH.
	BwrapPath string
	// DockerPrefix starts the names of docker sandboxes' containers and
	// volumes; "" means "keel". Servers that share sandboxes use the same.
	DockerPrefix string
	// Logger receives the agents' logs; nil means slog.Default().
	Logger *slog.Logger
	// Agent, when not empty, builds only the agent with that ID, as a
	// command that runs one agent needs; [Built].Agents then holds it
	// alone, and only the MCP servers it names are started. No agent
	// with that ID is an error.
	Agent string
	// LookupEnv reads the environment variables that MCP servers' env
	// and headers name; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)

	// extraTools are given to every agent built, after its own: the
	// tools of [AgentOptions], which a keel.yaml cannot name.
	extraTools []tool.Tool
}

// Built is what [File.Build] made.
type Built struct {
	// Agents in the file's order.
	Agents []*agent.Agent
	// Warnings are what an operator must be told at start, loudly, each
	// once: an agent without a usable model (and which variable to set),
	// sandbox commands that are off (and how to install bubblewrap), run
	// unisolated, or have a limit nothing enforces.
	Warnings []string
	// Info is what an operator should be told at start, once, when all is
	// well: how sandbox commands are isolated, as which user, and how each
	// limit is enforced.
	Info []string
	// Refusals are the remembered refusals all the agents share; nil when
	// they are off (refusals.remember: false) or the store keeps none.
	// The server's refusals route uses them, so that what it forgets
	// stops counting at once.
	Refusals *processor.RememberedRefusals
	// MCP are the MCP servers the agents name, started, in name order
	// (an optional one that could not start is missing). [Built.Close]
	// stops them.
	MCP []*mcpclient.Client
}

// Close stops the MCP servers of b, and waits for them. Call it when the
// agents are no longer used.
func (b *Built) Close() error {
	for _, c := range b.MCP {
		c.Close()
	}
	return nil
}

// ErrNoModel is what agents answer with when no model was configured and
// [BuildOptions].NoModel is nil.
var ErrNoModel = errors.New("config: no model configured: set KEEL_MODEL=provider/model " +
	"(such as google/gemini-2.5-flash), or one of OPENAI_API_KEY, ANTHROPIC_API_KEY, " +
	"GOOGLE_GENERATIVE_AI_API_KEY, then start keel again")

// Build is [File.BuildContext] with a context that never ends.
func (f *File) Build(opts BuildOptions) (*Built, error) {
	return f.BuildContext(context.Background(), opts)
}

// BuildContext makes the file's agents: MCP servers started (each once,
// ctx bounding their start), models resolved, tools and sandboxes
// attached, processors configured. An MCP server that cannot start is
// an [*Error] at its line (a warning when it is optional); a tool of a
// server that the server does not offer, or two tools of an agent with
// one name, is an [*Error] at the agent's tools entry. Call
// [Built.Close] to stop the servers. An agent gets a sandbox when a tool
// or its fileUpload reaches it (and not with sandbox: none). Sandboxes
// whose commands bubblewrap cannot isolate do not stop it: their files
// work, their commands are off (or unisolated, when the agent or opts
// allow it), and Warnings says so once. Warnings also holds the file's
// own ([File.Warnings]).
func (f *File) BuildContext(ctx context.Context, opts BuildOptions) (_ *Built, err error) {
	if opts.ResolveModel == nil {
		return nil, errors.New("config: build: BuildOptions.ResolveModel is required")
	}
	if err := f.validate(f.root); err != nil {
		return nil, err
	}
	opts.SandboxRoot = cmp.Or(opts.SandboxRoot, DefaultSandboxRoot)
	logger := cmp.Or(opts.Logger, slog.Default())
	chosen := make([]int, 0, len(f.Agents))
	for i, a := range f.Agents {
		if opts.Agent == "" || a.ID == opts.Agent {
			chosen = append(chosen, i)
		}
	}
	if len(chosen) == 0 {
		return nil, fmt.Errorf("config: build: no agent %q", opts.Agent)
	}
	out := &Built{Warnings: f.Warnings(), Refusals: f.rememberedRefusals(opts)}
	clients, warns, err := f.startServers(ctx, f.usedServers(chosen), opts, logger)
	if err != nil {
		return nil, err
	}
	for _, name := range f.mcpNames() {
		if c := clients[name]; c != nil {
			out.MCP = append(out.MCP, c)
		}
	}
	defer func() {
		if err != nil {
			out.Close()
		}
	}()
	out.Warnings = append(out.Warnings, warns...)
	var sandboxes sandboxLines
	// ctx bounds what is asked of a Docker engine too.
	docker := &dockerSandboxes{ctx: ctx, prefix: opts.DockerPrefix}
	rootMade := false
	describers := make(map[string]processor.ImageDescriber)
	for _, i := range chosen {
		a := f.Agents[i]
		var ws *workspace.Workspace
		if a.hasSandbox() && a.Sandbox.Engine == EngineDocker {
			var err error
			if ws, err = docker.workspace(a); err != nil {
				return nil, fmt.Errorf("config: agent %s: sandbox: %w", a.ID, err)
			}
		} else if a.hasSandbox() && !rootMade {
			// Sandboxes are made on a run's first need; a root that
			// cannot be made is a mistake to report now.
			if err := os.MkdirAll(opts.SandboxRoot, 0o755); err != nil {
				return nil, fmt.Errorf("config: sandbox root: %w", err)
			}
			rootMade = true
		}
		cfg, warns, err := f.agentConfig(i, opts, ws, logger)
		if err != nil {
			return nil, err
		}
		describer, warn, err := f.describer(a, opts, describers)
		if err != nil {
			return nil, err
		}
		if warn != "" && !slices.Contains(out.Warnings, warn) {
			out.Warnings = append(out.Warnings, warn)
		}
		cfg.Tools = append(cfg.Tools, opts.extraTools...)
		cfg.Files = processor.UnsupportedFileOptions{Converters: f.converters(a), Images: f.images(a), DescribeWith: describer,
			Refusals: out.Refusals, BlameReadableFiles: f.blamesReadable(a), ProviderFiles: f.providerFiles(a, opts)}
		if cfg.ToolSets, err = f.toolSets(i, cfg.Tools, clients); err != nil {
			return nil, err
		}
		ag, err := agent.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("config: agent %s: %w", a.ID, err)
		}
		out.Agents = append(out.Agents, ag)
		out.Warnings = append(out.Warnings, warns...)
		switch {
		case a.hasSandbox() && a.Sandbox.Engine == EngineDocker:
			sandboxes.add(a.ID, docker.status(a))
		case a.hasSandbox():
			sandboxes.add(a.ID, sandboxStatus(a, opts))
		}
	}
	warns, info := sandboxes.lines(len(chosen))
	out.Warnings = append(out.Warnings, warns...)
	out.Info = info
	if line := mcpLine(out.MCP); line != "" {
		out.Info = append(out.Info, line)
	}
	return out, nil
}

// hasSandbox reports whether the agent gets a sandbox: a sandbox tool or
// its fileUpload reaches it, and it does not say sandbox: none. An MCP
// server's tools do not work in the sandbox.
func (a Agent) hasSandbox() bool {
	return !a.Sandbox.None && (slices.ContainsFunc(a.Tools, isTool) || a.FileUpload != nil)
}

// agentConfig returns agent i's configuration; ws is its workspace when
// already made, else it is made here.
func (f *File) agentConfig(i int, opts BuildOptions, ws *workspace.Workspace, logger *slog.Logger) (agent.Config, []string, error) {
	a := f.Agents[i]
	models, warns, err := f.resolveModels(i, opts)
	if err != nil {
		return agent.Config{}, nil, err
	}
	links, err := f.fetchOf(a).client()
	if err != nil {
		return agent.Config{}, nil, fmt.Errorf("config: agent %s: files.fetch: %w", a.ID, err)
	}
	if ws == nil && a.hasSandbox() {
		ws = sandboxOf(a, opts)
	}
	cfg := agent.Config{
		ID:                     a.ID,
		Name:                   a.Name,
		Description:            a.Description,
		Instructions:           instructionsOf(a),
		Models:                 models,
		FallbackOnCallerErrors: a.FallbackOnCallerErrors,
		Links:                  links,
		KeepLinkCopies:         f.fetchOf(a) != nil && f.fetchOf(a).KeepCopy,
		Memory:                 opts.Memory,
		Workspace:              ws,
		MaxSteps:               a.MaxSteps,
		MaxProcessorRetries:    a.MaxProcessorRetries,
		LastMessages:           a.LastMessages.lastMessages(),
		GenerateTitle:          a.GenerateTitle,
		Logger:                 logger,
	}
	for _, name := range a.Tools {
		if isTool(name) {
			cfg.Tools = append(cfg.Tools, toolOf(name))
		}
	}
	cfg.DisableDefaultErrorProcessors = a.ErrorProcessorDefaults != nil && !*a.ErrorProcessorDefaults
	if r := a.StreamRetry; r != nil {
		// Same ID as the default instance, so it takes its slot.
		cfg.ErrorProcessors = append(cfg.ErrorProcessors, processor.NewStreamErrorRetry(processor.StreamErrorRetryOptions{
			MaxRetries: r.MaxRetries, Delay: r.Delay,
		}))
	}
	if a.FileUpload != nil {
		fu, err := a.FileUpload.processor(ws, f.converters(a))
		if err != nil {
			return agent.Config{}, nil, fmt.Errorf("config: agent %s: file upload: %w", a.ID, err)
		}
		cfg.InputProcessors = append(cfg.InputProcessors, fu)
	}
	return cfg, warns, nil
}

// instructionsOf returns the agent's instructions, or, when it sets none,
// default ones that tell the model what it has: its sandbox tools, the
// notes and text FileUpload gives it, or neither.
func instructionsOf(a Agent) string {
	switch {
	case a.Instructions != "":
		return a.Instructions
	case len(a.Tools) > 0 && !a.Sandbox.None:
		return DefaultInstructions
	case a.FileUpload != nil && !a.Sandbox.None:
		return DefaultUploadInstructions
	default:
		return DefaultPlainInstructions
	}
}

// resolveModels returns the models of agent i, in order, with a
// warning for each it cannot use. A model the resolver says is
// unavailable (no API key) is left out of a list that has others, so
// that the next answers at once; alone, it is an [UnavailableModel],
// which answers every call with the reason. A model the resolver refuses
// outright (an unknown provider) is an [*Error] at the agent's model
// line when the file names it.
func (f *File) resolveModels(i int, opts BuildOptions) ([]agent.ModelEntry, []string, error) {
	a := f.Agents[i]
	models := a.Model
	if len(models) == 0 {
		models = Model(opts.DefaultModel)
	}
	if len(models) == 0 {
		err := cmp.Or(opts.NoModel, ErrNoModel)
		return []agent.ModelEntry{{Model: &UnavailableModel{Err: err}}},
			[]string{fmt.Sprintf("agent %s has no model and will answer every call with an error: %v", a.ID, err)}, nil
	}
	var (
		out     []agent.ModelEntry
		missing []agent.ModelEntry
		warns   []string
	)
	for j, e := range models {
		m, err := opts.ResolveModel(e.Model)
		switch {
		case errors.Is(err, ErrModelUnavailable):
			missing = append(missing, agent.ModelEntry{Model: &UnavailableModel{Model: e.Model, Err: err}, MaxRetries: e.MaxRetries})
			warns = append(warns, fmt.Sprintf("agent %s cannot use %s: %v", a.ID, e.Model, err))
		case err != nil && len(a.Model) > 0:
			path, field := []any{"agents", i, "model"}, fmt.Sprintf("agents[%d].model", i)
			if len(a.Model) > 1 {
				path, field = append(path, j), fmt.Sprintf("agents[%d].model[%d]", i, j)
			}
			return nil, nil, &Error{File: f.path, Line: lineOf(f.root, path...), Field: field, Message: fmt.Sprintf("%q: %v", e.Model, err)}
		case err != nil:
			return nil, nil, fmt.Errorf("config: agent %s: default model %q: %w", a.ID, e.Model, err)
		default:
			out = append(out, agent.ModelEntry{Model: m, MaxRetries: e.MaxRetries})
		}
	}
	switch {
	case len(out) == 0 && len(models) == 1:
		return missing, []string{fmt.Sprintf("agent %s cannot use %s and will answer every call with an error: %v",
			a.ID, models[0].Model, missing[0].Model.(*UnavailableModel).Err)}, nil
	case len(out) == 0:
		// Every way out is named: the key of any model of the list will do.
		reasons := make([]string, len(missing))
		for j, m := range missing {
			um := m.Model.(*UnavailableModel)
			reasons[j] = fmt.Sprintf("for %s: %s", um.Model, strings.TrimPrefix(um.Err.Error(), ErrModelUnavailable.Error()+": "))
		}
		err := fmt.Errorf("%w: no model of %s can be used; any one will do: %s", ErrModelUnavailable, models, strings.Join(reasons, "; or, "))
		warns = append(warns, fmt.Sprintf("agent %s has no model it can use and will answer every call with an error: %v", a.ID, err))
		return []agent.ModelEntry{{Model: &UnavailableModel{Model: models[0].Model, Err: err}, MaxRetries: missing[0].MaxRetries}}, warns, nil
	case len(missing) > 0:
		warns = append(warns, fmt.Sprintf("agent %s answers with %s, leaving out what it cannot use", a.ID, modelNames(out)))
	}
	return out, warns, nil
}

func modelNames(entries []agent.ModelEntry) string {
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = agent.ModelName(e.Model)
	}
	return strings.Join(names, ", ")
}

// sandboxOf returns the agent's workspace: its sandboxes under the
// sandbox root, one per resource, per thread or one for all. How their
// commands run is said once at start (see sandboxStatus), not here.
func sandboxOf(a Agent, opts BuildOptions) *workspace.Workspace {
	return workspace.NewResolved(localsandbox.NewResolver(opts.SandboxRoot, resolutionMode(a.Sandbox), sandboxOptions(a.Sandbox, opts)))
}

// limitsOf are the sandbox limits of keel.yaml, as both engines take them.
func limitsOf(l SandboxLimits) localsandbox.Limits {
	return localsandbox.Limits{
		Processes: l.Processes, Memory: int64(l.Memory), FileSize: int64(l.FileSize),
		Disk: int64(l.Disk), Files: l.Files, CPUTime: l.CPUTime,
	}
}

// sandboxOptions are the options of the agent's sandboxes. Their
// warnings are given once, at start (see sandboxStatus); the resolver's
// sandboxes would otherwise repeat them on every run.
func sandboxOptions(sb Sandbox, opts BuildOptions) localsandbox.Options {
	return localsandbox.Options{
		AllowUnisolated: sb.AllowUnisolated || opts.AllowUnisolated,
		BwrapPath:       opts.BwrapPath,
		UID:             sb.UID,
		GID:             sb.GID,
		OwnFilesystem:   sb.OwnFilesystem,
		Limits:          limitsOf(sb.Limits),
		Logger:          quiet,
	}
}

// statusLine is what a sandbox's status says at start: loudly (a
// warning) or not.
type statusLine interface {
	String() string
	Warning() string
}

// sandboxStatus is how the agent's sandbox commands will run here.
func sandboxStatus(a Agent, opts BuildOptions) statusLine {
	return localsandbox.Check(opts.SandboxRoot, sandboxOptions(a.Sandbox, opts))
}

// sandboxLines gathers the agents' sandbox status lines, so that each is
// said once however many agents it concerns.
type sandboxLines struct {
	order  []string
	agents map[string][]string
	loud   map[string]bool
}

func (s *sandboxLines) add(agentID string, st statusLine) {
	line, loud := st.Warning(), true
	if line == "" {
		line, loud = st.String(), false
	}
	if s.agents == nil {
		s.agents, s.loud = make(map[string][]string), make(map[string]bool)
	}
	if _, seen := s.agents[line]; !seen {
		s.order = append(s.order, line)
	}
	s.agents[line] = append(s.agents[line], agentID)
	s.loud[line] = loud
}

// lines returns the warnings and the info lines; a line that does not
// concern all n agents names the ones it does.
func (s *sandboxLines) lines(n int) (warnings, info []string) {
	for _, key := range s.order {
		line := key
		if ids := s.agents[key]; len(ids) < n {
			line = "agent " + strings.Join(ids, ", ") + ": " + key
		}
		if s.loud[key] {
			warnings = append(warnings, line)
		} else {
			info = append(info, line)
		}
	}
	return warnings, info
}

// quiet discards the sandboxes' per-run warnings; Build reports them once.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func toolOf(name string) tool.Tool {
	switch name {
	case ToolRunCommand:
		return tool.RunCommand()
	case ToolReadFile:
		return tool.ReadFile()
	default:
		return tool.ListFiles()
	}
}
