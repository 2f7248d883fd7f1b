package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/mcp/internal/impl"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of [Options].
const (
	// DefaultResource is the resource of a trusted caller's runs that name
	// none: the one keel run and keel threads use by default, so that
	// their threads show in keel threads list.
	DefaultResource = "default"
	// DefaultMaxFiles is the most files one ask takes.
	DefaultMaxFiles = 20
	// DefaultMaxFileBytes is the largest file an ask takes, decoded: the
	// limit of keel run's --file.
	DefaultMaxFileBytes = 50 << 20
	// MaxMessageBytes is the largest message the server reads over stdio
	// (one JSON-RPC line): room for a file of DefaultMaxFileBytes in
	// base64, where the SDK's default (16 MiB) would refuse it.
	MaxMessageBytes = 72 << 20
)

// Options configure a [Server].
type Options struct {
	// Agents are offered as tools, each as ask_ID. Required.
	Agents []*agent.Agent
	// DefaultResource is the resource of a trusted caller's asks that
	// name none; "" means [DefaultResource].
	DefaultResource string
	// MaxFiles caps the files of one ask; 0 means [DefaultMaxFiles].
	MaxFiles int
	// MaxFileBytes caps each file of an ask, decoded; 0 means
	// [DefaultMaxFileBytes].
	MaxFileBytes int64
	// Logger receives the server's logs; nil means slog.Default(). Over
	// stdio it must not write to standard output, which is the protocol's.
	Logger *slog.Logger
}

// Server offers keel's agents as MCP tools. It is safe for concurrent
// use; each ask is an independent run of its agent.
type Server struct {
	opts  Options
	tools []askTool
	// trusted serves callers who may name any resource: stdio, and HTTP
	// without Authorize or with a shared token. Users get a server of
	// their own per request (see Handler).
	trusted *sdk.Server
}

// askTool is one agent, as a tool.
type askTool struct {
	name  string
	agent *agent.Agent
}

// ErrInvalidOptions is wrapped by the errors of [New].
var ErrInvalidOptions = errors.New("mcpserver: invalid options")

// toolNameRE is what MCP allows in a tool's name.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// ToolName returns the tool that offers the agent with ID id: "ask_" and
// the ID, each ':' (which agent IDs may hold and MCP tool names may not)
// written '_'.
func ToolName(id string) string { return "ask_" + strings.ReplaceAll(id, ":", "_") }

// New returns a server offering opts.Agents.
func New(opts Options) (*Server, error) {
	if len(opts.Agents) == 0 {
		return nil, fmt.Errorf("%w: no agents", ErrInvalidOptions)
	}
	opts.DefaultResource = cmp.Or(opts.DefaultResource, DefaultResource)
	if !memory.ValidID(opts.DefaultResource) {
		return nil, fmt.Errorf("%w: DefaultResource %q is not a valid id", ErrInvalidOptions, opts.DefaultResource)
	}
	opts.MaxFiles = cmp.Or(opts.MaxFiles, DefaultMaxFiles)
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	opts.Logger = cmp.Or(opts.Logger, slog.Default())
	s := &Server{opts: opts}
	seen := make(map[string]string)
	for _, a := range opts.Agents {
		if a == nil {
			return nil, fmt.Errorf("%w: a nil agent", ErrInvalidOptions)
		}
		name := ToolName(a.ID())
		if !toolNameRE.MatchString(name) {
			return nil, fmt.Errorf("%w: agent %q makes the tool name %q, which MCP does not allow", ErrInvalidOptions, a.ID(), name)
		}
		if other, dup := seen[name]; dup {
			return nil, fmt.Errorf("%w: agents %q and %q are both the tool %s", ErrInvalidOptions, other, a.ID(), name)
		}
		seen[name] = a.ID()
		s.tools = append(s.tools, askTool{name: name, agent: a})
	}
	s.trusted = s.sdkServer(Caller{})
	return s, nil
}

// Tools returns the names of the server's tools, in the agents' order.
func (s *Server) Tools() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.name
	}
	return names
}

// sdkServer returns an SDK server whose tools act for caller.
func (s *Server) sdkServer(caller Caller) *sdk.Server {
	srv := sdk.NewServer(impl.Keel(), &sdk.ServerOptions{
		Instructions: "Each tool asks one of keel's agents: give it a message and any files; " +
			"it answers with text. Give the threadId of an answer to continue its conversation.",
		Logger: s.opts.Logger,
	})
	for _, t := range s.tools {
		srv.AddTool(s.toolOf(t), s.askHandler(t.agent, caller))
	}
	return srv
}

// toolOf describes an agent as a tool.
func (s *Server) toolOf(t askTool) *sdk.Tool {
	cfg := t.agent.Config()
	desc := fmt.Sprintf("Ask the agent %q", cfg.Name)
	if cfg.Description != "" {
		desc += ": " + cfg.Description
	}
	desc += ". It answers with text; files it cannot read itself are handled as keel handles a user's files " +
		"(converted to text or put in its sandbox), and the answer's recoveries say how."
	return &sdk.Tool{
		Name: t.name, Title: "Ask " + cfg.Name, Description: desc,
		InputSchema: inputSchema, OutputSchema: outputSchema,
		Annotations: &sdk.ToolAnnotations{OpenWorldHint: new(true)},
	}
}

var inputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"message":{"type":"string","description":"What to ask the agent."},` +
	`"files":{"type":"array","description":"Files for the agent to read.","items":{"type":"object","properties":{` +
	`"name":{"type":"string","description":"The file's name, such as leads.xlsx."},` +
	`"mediaType":{"type":"string","description":"The file's media type; left out, it is guessed from the name and content."},` +
	`"data":{"type":"string","description":"The file's content in base64, or a data: URL."}},` +
	`"required":["data"]}},` +
	`"threadId":{"type":"string","description":"Continue this conversation (from an earlier answer's threadId); left out, a new one starts."},` +
	`"resourceId":{"type":"string","description":"Whose conversation it is; left out, the server's default. A user's token acts for its own only."}` +
	`},"required":["message"]}`)

var outputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"text":{"type":"string","description":"The agent's answer."},` +
	`"threadId":{"type":"string","description":"The conversation, to continue it."},` +
	`"resourceId":{"type":"string"},` +
	`"runId":{"type":"string"},` +
	`"finishReason":{"type":"string"},` +
	`"recoveries":{"type":"array","description":"What keel did with files the model refused: converted, uploaded to the sandbox, or replaced by a placeholder.","items":{"type":"object"}}` +
	`},"required":["text","recoveries"]}`)

// askInput is the input of an ask_ tool.
type askInput struct {
	Message    string      `json:"message"`
	Files      []inputFile `json:"files"`
	ThreadID   string      `json:"threadId"`
	ResourceID string      `json:"resourceId"`
}

// AskOutput is the structured result of an ask_ tool.
type AskOutput struct {
	Text         string            `json:"text"`
	ThreadID     string            `json:"threadId,omitempty"`
	ResourceID   string            `json:"resourceId,omitempty"`
	RunID        string            `json:"runId"`
	FinishReason keel.FinishReason `json:"finishReason"`
	// Recoveries are what keel did with the files the model refused.
	Recoveries []processor.Recovery `json:"recoveries"`
}

// askHandler runs agent a for caller. Mistakes in the input and the
// agent's failures are tool errors, which the calling model reads.
func (s *Server) askHandler(a *agent.Agent, caller Caller) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in askInput
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return toolError("the input is not what %s takes: %v", ToolName(a.ID()), err), nil
		}
		opts, msg, err := s.prepare(a, caller, in)
		if err != nil {
			return toolError("%v", err), nil
		}
		res, err := a.Generate(ctx, []keel.Message{msg}, opts...)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return toolError("agent %s failed: %v", a.ID(), err), nil
		}
		out := AskOutput{Text: res.Text, ThreadID: res.ThreadID, ResourceID: res.ResourceID, RunID: res.RunID,
			FinishReason: res.FinishReason, Recoveries: res.Recoveries}
		if out.Recoveries == nil {
			out.Recoveries = []processor.Recovery{}
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Text}}, StructuredContent: out}, nil
	}
}

// prepare checks an ask's input and turns it into the run's options and
// its message.
func (s *Server) prepare(a *agent.Agent, caller Caller, in askInput) ([]agent.RunOption, keel.Message, error) {
	if strings.TrimSpace(in.Message) == "" && len(in.Files) == 0 {
		return nil, keel.Message{}, errors.New("message is empty: say what to ask the agent")
	}
	resource := in.ResourceID
	switch {
	case !caller.Trusted() && resource != "" && resource != caller.Resource:
		return nil, keel.Message{}, fmt.Errorf("resourceId %q: this caller acts for its own resource only; leave resourceId out", resource)
	case !caller.Trusted():
		resource = caller.Resource
	case resource == "":
		resource = s.opts.DefaultResource
	}
	if !memory.ValidID(resource) {
		return nil, keel.Message{}, fmt.Errorf("resourceId %q: use 1 to %d of A-Z a-z 0-9 . _ : -", resource, memory.MaxIDLength)
	}
	thread := in.ThreadID
	if thread != "" && !memory.ValidID(thread) {
		return nil, keel.Message{}, fmt.Errorf("threadId %q: use 1 to %d of A-Z a-z 0-9 . _ : -", thread, memory.MaxIDLength)
	}
	hasMemory := a.Config().Memory != nil
	switch {
	case thread != "" && !hasMemory:
		return nil, keel.Message{}, fmt.Errorf("agent %s keeps no conversations: leave threadId out", a.ID())
	case thread == "" && hasMemory:
		thread = memory.NewID()
	}
	msg := keel.UserText(in.Message)
	files, err := s.decodeFiles(in.Files)
	if err != nil {
		return nil, keel.Message{}, err
	}
	for _, f := range files {
		msg.Parts = append(msg.Parts, f)
	}
	opts := []agent.RunOption{agent.WithResource(resource)}
	if thread != "" {
		opts = append(opts, agent.WithThread(thread))
	}
	return opts, msg, nil
}

func toolError(format string, args ...any) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// ServeStdio serves MCP over r and w (a client's pipes: keel's standard
// input and output) until the client closes r or ctx ends. The caller is
// trusted: whoever can start keel can name any resource. Nothing but the
// protocol may be written to w meanwhile.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	t := &sdk.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}, MaxLineLength: MaxMessageBytes}
	err := s.trusted.Run(ctx, t)
	if err != nil && (errors.Is(err, io.EOF) || ctx.Err() != nil) {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
