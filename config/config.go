package config

import (
	"time"

	"gopkg.in/yaml.v3"
)

// DefaultFile is the configuration file keel looks for in the working
// directory when none is named.
const DefaultFile = "keel.yaml"

// DefaultAgentID is the ID of the agent of [Default].
const DefaultAgentID = "assistant"

// DefaultTokenEnv is the environment variable that holds the server's
// bearer token when [Server].TokenEnv is empty.
const DefaultTokenEnv = "KEEL_API_TOKEN"

// DefaultAddr is where the server listens when neither the file nor the
// command line says: loopback, on the port Mastra's server uses.
const DefaultAddr = "127.0.0.1:4111"

// The tools an agent may name in Tools.
const (
	ToolRunCommand = "run_command"
	ToolReadFile   = "read_file"
	ToolListFiles  = "list_files"
)

// The engines an agent's sandbox may name in [Sandbox].Engine.
const (
	// EngineLocal keeps each sandbox in a directory under the sandbox
	// root and runs its commands in bubblewrap (package localsandbox).
	EngineLocal = "local"
	// EngineDocker keeps each sandbox in a Docker container and volume
	// on the engine DOCKER_HOST names (package dockersandbox), where every
	// keel server that uses the engine finds it.
	EngineDocker = "docker"
)

// The sandbox resolutions an agent may name in [Sandbox].Resolution.
const (
	PerResource = "per-resource"
	PerThread   = "per-thread"
	Shared      = "shared"
)

// File is a keel.yaml: the agents keel serves and how its server runs.
// The zero value has no agents; [Default] is what keel runs without a file.
type File struct {
	// Agents are served in this order; IDs are unique.
	Agents []Agent `yaml:"agents"`
	// Server configures keel serve.
	Server Server `yaml:"server"`
	// Files says what the agents do with files their model refused;
	// each agent's files: overrides it.
	Files Files `yaml:"files"`
	// Refusals configures remembered refusals, shared by all agents.
	Refusals Refusals `yaml:"refusals"`
	// MCP are the MCP servers whose tools agents may name, by name.
	MCP map[string]MCPServer `yaml:"mcp"`

	// path names the file in error messages; "" for a file not read from
	// disk.
	path string
	// root is the parsed document, for the lines of mistakes found after
	// parsing (such as an unknown provider); nil for a File built in code.
	root *yaml.Node
}

// Path returns the path the file was loaded from, or "" when it was
// parsed from memory or is the [Default].
func (f *File) Path() string { return f.path }

// Agent describes one agent of a [File].
type Agent struct {
	// ID names the agent in URLs and on the command line: 1 to 128 of
	// [A-Za-z0-9._:-]. Required.
	ID string `yaml:"id"`
	// Name is a display name; empty means ID.
	Name string `yaml:"name"`
	// Description says what the agent is for.
	Description string `yaml:"description"`
	// Instructions are the system message of every call; empty means
	// default ones that tell the model of its tools and files:
	// [DefaultInstructions] for an agent with tools,
	// [DefaultUploadInstructions] with a fileUpload and no tools,
	// [DefaultPlainInstructions] without a sandbox.
	Instructions string `yaml:"instructions"`
	// Model is the agent's model, a model string such as
	// "google/gemini-2.5-flash", or its models in order, the next taking
	// over when one fails (see [Models]); empty means the default model
	// (KEEL_MODEL, else the first provider whose key is set).
	Model Models `yaml:"model"`
	// FallbackOnCallerErrors makes errors that are the caller's fault (a
	// 401 or 403, a request rejected not because of a file) go on to the
	// next model too; by default they surface, since another model would
	// hide a mistake to fix.
	FallbackOnCallerErrors bool `yaml:"fallbackOnCallerErrors"`
	// Tools are the tools the model may call, by name: the sandbox tools
	// run_command, read_file and list_files; a server of the file's mcp:
	// (all its tools); or one tool of such a server, "SERVER/TOOL" with
	// the server's name for the tool. An agent without a sandbox tool has
	// no sandbox unless FileUpload is set: a file the model refuses then
	// becomes a placeholder, not a note about a sandbox it cannot reach.
	Tools []string `yaml:"tools"`
	// Sandbox says which runs share a sandbox, or, written "sandbox:
	// none", that the agent has none.
	Sandbox Sandbox `yaml:"sandbox"`
	// FileUpload, when set, puts the user's files it chooses into the
	// agent's sandbox before the model sees them (the file-upload
	// processor); nil leaves files in the prompt.
	FileUpload *FileUpload `yaml:"fileUpload"`
	// ErrorProcessorDefaults turns the default error processors
	// (prefill-error-handler, unsupported-file-handler,
	// stream-error-retry-processor) on or off; nil means on.
	ErrorProcessorDefaults *bool `yaml:"errorProcessorDefaults"`
	// StreamRetry replaces the default stream-error retry processor's
	// options; nil keeps the default (2 retries, 3 s apart).
	StreamRetry *StreamRetry `yaml:"streamRetry"`
	// MaxSteps caps the model calls of a run; 0 means the agent's default.
	MaxSteps int `yaml:"maxSteps"`
	// MaxProcessorRetries caps processor-triggered retries per run; 0
	// means the default, a negative value means none.
	MaxProcessorRetries int `yaml:"maxProcessorRetries"`
	// Files overrides the file's files: settings for this agent.
	Files Files `yaml:"files"`
	// LastMessages is the history window: how many of a thread's last
	// messages a run sends the model; left out means 10, 0 or false the
	// whole thread. A request's memory.options.lastMessages wins.
	LastMessages Window `yaml:"lastMessages"`
	// GenerateTitle asks the model for a short title of each new thread
	// after its first turn; off by default (the title is then the first
	// user text).
	GenerateTitle bool `yaml:"generateTitle"`
}

// Sandbox configures an agent's sandboxes, kept under the sandbox root
// (--sandbox, default ./.keel/sandbox), or in Docker containers. In
// keel.yaml it is a mapping of the fields below, or the word none.
type Sandbox struct {
	// None is set by "sandbox: none": the agent has no sandbox, so it may
	// have no tool and no fileUpload, and a file the model refuses becomes
	// a placeholder. The other fields are then zero.
	None bool `yaml:"-"`
	// Engine is local (the default: a directory per sandbox, commands in
	// bubblewrap) or docker (a container and volume per sandbox on the
	// engine DOCKER_HOST names, shared by every keel server using it).
	Engine string `yaml:"engine"`
	// Image is a docker sandbox's container image; empty means
	// keel/sandbox:busybox, which keel builds from the machine's static
	// busybox when the engine lacks it. Docker only.
	Image string `yaml:"image"`
	// Runtime is a docker sandbox's OCI runtime, such as runsc for gVisor;
	// empty means the engine's default (runc). Docker only.
	Runtime string `yaml:"runtime"`
	// IdleTimeout stops a docker sandbox's container after this long
	// without a command, its files kept in its volume; 0 means 15m.
	// Docker only.
	IdleTimeout time.Duration `yaml:"idleTimeout"`
	// Resolution is per-resource (the default: each user has their own),
	// per-thread, or shared (one for every run).
	Resolution string `yaml:"resolution"`
	// AllowUnisolated lets commands run without bubblewrap when it cannot
	// run here; they then see the whole machine. Off by default: then,
	// without bubblewrap, files still work but sandbox commands are off,
	// and keel says so once at start.
	AllowUnisolated bool `yaml:"allowUnisolated"`
	// OwnFilesystem gives each local sandbox a file system of its own,
	// the size of its disk quota (a loop-mounted ext4 image beside its
	// directory), where keel runs as root with loop devices and
	// mkfs.ext4: the kernel then holds the quota and nothing is
	// measured. Off by default, since the mount outlives keel (see
	// localsandbox.Unmount); where the host does not allow it, the quota
	// is measured and keel says so at start. Local only.
	OwnFilesystem bool `yaml:"ownFilesystem"`
	// UID and GID are the host user and group that run the sandbox's
	// commands and own its files when keel runs as root; 0 means
	// 2100000000, a user no system hands out. Ignored when keel does not
	// run as root: commands then run as keel's own user.
	UID int `yaml:"uid"`
	GID int `yaml:"gid"`
	// Limits bound what each sandbox's commands may use.
	Limits SandboxLimits `yaml:"limits"`

	// written is set when keel.yaml gives the agent's sandbox settings,
	// even empty ones, so that a sandbox no tool can reach is warned of.
	written bool
}

// SandboxNone is how keel.yaml says that an agent has no sandbox:
// "sandbox: none".
const SandboxNone = "none"

// SandboxLimits bound what each of an agent's sandboxes may use; a field
// left out (or 0) keeps its default.
type SandboxLimits struct {
	// Processes the sandbox's commands may have at once, threads
	// included; default 256.
	Processes int `yaml:"processes"`
	// Memory the sandbox's commands may use, such as 512MiB; default 1GiB.
	Memory ByteSize `yaml:"memory"`
	// FileSize is the largest file a command may write; default 1GiB.
	FileSize ByteSize `yaml:"fileSize"`
	// Disk is how much the sandbox's directory may hold; default 2GiB.
	Disk ByteSize `yaml:"disk"`
	// Files is how many files, directories and links the sandbox may
	// hold; default 100000. A measured disk quota fails past it, so
	// that a tree of many small files cannot make measuring slow.
	Files int64 `yaml:"files"`
	// CPUTime each process of a command may use, such as 5m; default 10m.
	CPUTime time.Duration `yaml:"cpuTime"`
	// CPUs is how many CPUs' worth of time a docker sandbox's commands
	// may use at once, such as 0.5; default 1. Docker only.
	CPUs float64 `yaml:"cpus"`
}

// StreamRetry configures the stream-error retry processor, which sends a
// request that failed for a passing reason (429, 5xx...) again.
type StreamRetry struct {
	// MaxRetries per run; 0 means 1, a negative value turns retries off.
	MaxRetries int `yaml:"maxRetries"`
	// Delay before each retry, such as "3s".
	Delay time.Duration `yaml:"delay"`
}

// Server configures keel serve.
type Server struct {
	// Addr is the address to listen on; empty means [DefaultAddr]. The
	// command line's --addr wins.
	Addr string `yaml:"addr"`
	// TokenEnv is the older place of Auth.TokenEnv, still read.
	TokenEnv string `yaml:"tokenEnv"`
	// MaxBodyBytes caps a request body; 0 means the server's default
	// (50 MiB).
	MaxBodyBytes int64 `yaml:"maxBodyBytes"`
	// Auth says how callers are told apart: a shared token, per-user
	// tokens, or both (see [Server.ResolveAuth]).
	Auth Auth `yaml:"auth"`
	// CORS lets apps in a browser call the server.
	CORS CORS `yaml:"cors"`
	// Metrics configures the Prometheus metrics at /metrics: on by
	// default, behind the API's auth.
	Metrics Metrics `yaml:"metrics"`
	// MCP configures /mcp, where keel's agents answer as MCP tools.
	MCP ServerMCP `yaml:"mcp"`
}

// DefaultInstructions are the instructions of the agent of [Default].
const DefaultInstructions = "You are a helpful assistant. Files the user sends that you cannot read " +
	"are put in your sandbox: use list_files, read_file and run_command to work with them."

// DefaultUploadInstructions are the instructions of an agent of keel.yaml
// that sets none, has a fileUpload and no tools.
const DefaultUploadInstructions = "You are a helpful assistant. Files the user sends are put in a sandbox: " +
	"a note gives each one's path, followed by its text when it could be read."

// DefaultPlainInstructions are the instructions of an agent of keel.yaml
// that sets none and has no sandbox.
const DefaultPlainInstructions = "You are a helpful assistant. A file the user sends that you cannot read " +
	"reaches you as its text, or as a note saying it is unavailable."

// Default returns the configuration keel runs without a keel.yaml: one
// agent, "assistant", on the default model with the three sandbox tools,
// a sandbox per resource, and the default processors.
func Default() *File {
	return &File{Agents: []Agent{{
		ID:           DefaultAgentID,
		Name:         "Assistant",
		Description:  "A general assistant with a sandbox for the files it is sent.",
		Instructions: DefaultInstructions,
		Tools:        []string{ToolRunCommand, ToolReadFile, ToolListFiles},
	}}}
}

// Agent returns the agent with the given ID and whether there is one.
func (f *File) Agent(id string) (Agent, bool) {
	for _, a := range f.Agents {
		if a.ID == id {
			return a, true
		}
	}
	return Agent{}, false
}
