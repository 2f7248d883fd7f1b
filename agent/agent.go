package agent

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/fetch"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/observe"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/tool"
	"github.com/keel-go/keel/workspace"
)

// DefaultMaxSteps is the number of model calls (steps) a run makes at most
// when Config.MaxSteps is 0.
const DefaultMaxSteps = 5

// DefaultLastMessages is the history window of a run in a thread when
// Config.LastMessages is 0: the thread's last 10 messages, as in Mastra.
const DefaultLastMessages = 10

// AllMessages, as Config.LastMessages or [WithLastMessages], sends a
// thread's whole history to the model.
const AllMessages = -1

// Config describes an agent. Only ID and Model are required, but an
// agent with only those does much less than keel run's: the model gets a
// bare note for a file it refuses, no text of it, no tool to open it, and
// every turn pays the refusal again. The fields below say what each left
// out costs. [github.com/keel-go/keel/config.NewAgent] builds an agent
// with all of them set as keel run sets them, in one call.
type Config struct {
	// ID identifies the agent, such as "assistant".
	ID string
	// Name is a display name; it defaults to ID.
	Name string
	// Description says what the agent is for.
	Description string
	// Instructions are sent as the system message of every call. Without
	// them the model is not told of its tools or its sandbox, and may
	// answer that it cannot open a file whose path a note gives it.
	Instructions string
	// Model answers the agent's calls. Give it, or Models; [Agent.Config]
	// holds the first of Models here.
	Model keel.Model
	// Models, when not empty, are the agent's models in order, instead of
	// Model: every call goes to the first, and a call whose error the
	// error processors gave up on (after repairing what they could on the
	// same model) moves to the next, which starts from the prompt as the
	// user sent it and keeps the run until it ends or fails in turn.
	// Errors that are the caller's fault ([CallerFault]) and the
	// context's end surface instead.
	Models []ModelEntry
	// FallbackOnCallerErrors makes errors that are the caller's fault
	// ([CallerFault]: 401, 403, a request rejected not because of a file)
	// move to the next model too.
	FallbackOnCallerErrors bool
	// Tools the model may call. Without tool.ReadFile, tool.ListFiles
	// or tool.RunCommand, a file uploaded to the sandbox is a path the
	// model cannot open: only the text Files.Converters give reaches it.
	Tools []tool.Tool
	// ToolSets are tools that may change while the agent lives, such as an
	// MCP server's (see package mcp/mcpclient). Each run reads them once,
	// at its start, after Tools: a name that Tools or an earlier set holds
	// already is left out of the run, with a warning in the log.
	ToolSets []tool.Set
	// Memory keeps threads; nil means runs have no history and naming a
	// thread is an error. It is also where Files.Refusals are kept.
	Memory memory.Store
	// Workspace gives runs their sandbox: where tools work and where
	// refused files are uploaded. Nil means no sandbox: a refused file
	// becomes "[Attachment unavailable: NAME]" (or its text, with
	// Files.Converters), and the sandbox tools fail.
	Workspace *workspace.Workspace
	// InputProcessors check and change a turn's new messages, and may hook
	// LLM requests and API errors too (they are asked first).
	InputProcessors []processor.Processor
	// ErrorProcessors decide what happens when a model call fails. They
	// are merged with the defaults (prefill-error-handler,
	// unsupported-file-handler, stream-error-retry-processor) by
	// [processor.MergeErrorProcessors]: one with a default's ID takes that
	// default's place.
	ErrorProcessors []processor.Processor
	// DisableDefaultErrorProcessors turns the default error processors off;
	// only ErrorProcessors are used.
	DisableDefaultErrorProcessors bool
	// Files configure the default unsupported-file handler beyond the
	// reference framework's, which the zero value keeps (the note or a
	// placeholder only): Converters give the model the text of a file it
	// refused (convert.Default()), Images a refused image in a form it
	// can use (imageconv.Default()), Refusals remember what each model
	// refused so that later turns and threads handle the file before the
	// call (agents on one store should share one value), and
	// BlameReadableFiles lets an error that names no file be blamed on
	// images, PDFs and text too. keel serve and keel run set them all. See
	// [processor.UnsupportedFileOptions].
	//
	// Each left out costs: without Converters the model gets the note
	// ("[File uploaded to the sandbox]" and a path) and must open the file
	// with a tool, or gets a placeholder without a sandbox; without Images
	// a refused image is a note too; without Refusals every turn, and
	// every thread, sends a refused file again and pays a failed call (or
	// the SDK's refusal) before the handler acts; without
	// BlameReadableFiles a text-only model that refuses an image in words
	// keel does not know fails the turn.
	Files processor.UnsupportedFileOptions
	// Links downloads, before each call, the files given by http(s) link
	// that the model's provider does not fetch itself, so that the model
	// gets their bytes; one that cannot be downloaded becomes a note with
	// the reason. Nil downloads nothing: every such link becomes the note.
	// KeepLinkCopies stores a downloaded file in its message in place of
	// the link. Both configure the agent's first processor,
	// [processor.LinkDownload], which says the rest.
	Links          *fetch.Client
	KeepLinkCopies bool
	// MaxSteps caps the model calls of a run (tool steps); 0 means
	// [DefaultMaxSteps].
	MaxSteps int
	// LastMessages is the history window of a run in a thread: the
	// thread's last LastMessages stored messages are sent to the model,
	// and only those are read from Memory; 0 means [DefaultLastMessages],
	// [AllMessages] (or any negative value) the whole thread. A tool
	// result is never sent without the call it answers: a window that
	// would begin with one reaches back to the call.
	LastMessages int
	// GenerateTitle asks the model for a short title of a new thread
	// after its first turn, in place of the default title (the first
	// user text, cut to [MaxTitleLength]). A failure to title is logged,
	// never the turn's failure.
	GenerateTitle bool
	// MaxProcessorRetries caps processor-triggered retries per run; 0 means
	// [processor.DefaultMaxRetries], a negative value means none.
	MaxProcessorRetries int
	// Logger receives the agent's and its processors' logs; nil means
	// slog.Default().
	Logger *slog.Logger
	// Observer is told of each run, step, model call, processor hook and
	// tool call, and, through the run's context, of its sandbox commands
	// and uploads (see package observe). Nil means the observer the run's
	// context carries (observe.NewContext; a server's), if any; without
	// either, nothing is reported and nothing is measured.
	Observer observe.Observer
}

// Agent runs a model with tools, memory, a workspace and processors. It is
// safe for concurrent use: each Generate or Stream call is an independent
// run.
type Agent struct {
	cfg        Config
	processors []processor.Processor
	pipeline   *processor.Pipeline // the first model's
	models     []modelSlot
	tools      map[string]tool.Tool
	defs       []keel.ToolDefinition
	logger     *slog.Logger
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ErrInvalidConfig is wrapped by the errors of [New].
var ErrInvalidConfig = errors.New("agent: invalid config")

// New returns an agent for cfg.
func New(cfg Config) (*Agent, error) {
	if cfg.ID == "" {
		return nil, fmt.Errorf("%w: ID is required", ErrInvalidConfig)
	}
	cfg.Name = cmp.Or(cfg.Name, cfg.ID)
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	switch {
	case cfg.LastMessages == 0:
		cfg.LastMessages = DefaultLastMessages
	case cfg.LastMessages < 0:
		cfg.LastMessages = AllMessages
	}
	a := &Agent{cfg: cfg, tools: make(map[string]tool.Tool), logger: cmp.Or(cfg.Logger, slog.Default())}
	for _, t := range cfg.Tools {
		if !toolNameRE.MatchString(t.Name) {
			return nil, fmt.Errorf("%w: tool name %q: use 1 to 64 letters, digits, '_' or '-'", ErrInvalidConfig, t.Name)
		}
		if t.Execute == nil {
			return nil, fmt.Errorf("%w: tool %s has no Execute", ErrInvalidConfig, t.Name)
		}
		if _, dup := a.tools[t.Name]; dup {
			return nil, fmt.Errorf("%w: tool %s is given twice", ErrInvalidConfig, t.Name)
		}
		a.tools[t.Name] = t
		a.defs = append(a.defs, t.Definition())
	}
	for i, set := range cfg.ToolSets {
		if set == nil {
			return nil, fmt.Errorf("%w: ToolSets[%d] is nil", ErrInvalidConfig, i)
		}
	}
	errorProcs := cfg.ErrorProcessors
	if !cfg.DisableDefaultErrorProcessors {
		defaults := processor.DefaultErrorProcessors()
		if cfg.Files != (processor.UnsupportedFileOptions{}) {
			// The configured handler takes the default's slot, by its ID.
			defaults = processor.MergeErrorProcessors(defaults, []processor.Processor{
				processor.NewUnsupportedFileHandlerWith(cfg.Files),
			})
		}
		errorProcs = processor.MergeErrorProcessors(defaults, cfg.ErrorProcessors)
	}
	// Links are downloaded first, so that every other processor sees the
	// files they give as any file.
	links := &processor.LinkDownload{Client: cfg.Links, KeepCopies: cfg.KeepLinkCopies}
	a.processors = slices.Concat([]processor.Processor{links}, cfg.InputProcessors, errorProcs)
	if err := a.buildModels(&cfg); err != nil {
		return nil, err
	}
	a.cfg = cfg
	return a, nil
}

// ID returns the agent's ID.
func (a *Agent) ID() string { return a.cfg.ID }

// Config returns the agent's configuration, defaults filled in.
func (a *Agent) Config() Config { return a.cfg }

// Processors returns the agent's processors in the order their hooks run:
// [processor.LinkDownload], the input processors, then the error
// processors.
func (a *Agent) Processors() []processor.Processor {
	return append([]processor.Processor(nil), a.processors...)
}
