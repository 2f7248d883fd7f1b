package config

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/keel-go/keel/memory"
	"gopkg.in/yaml.v3"
)

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// toolNames are the tools an agent may name, in the order error messages
// list them.
var toolNames = []string{ToolRunCommand, ToolReadFile, ToolListFiles}

// validate checks f's settings; root is the parsed document, for line
// numbers (nil when there is none, as for a File built in code).
func (f *File) validate(root *yaml.Node) error {
	var errs []error
	add := func(field string, path []any, format string, args ...any) {
		errs = append(errs, &Error{File: f.path, Line: lineOf(root, path...), Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if len(f.Agents) == 0 {
		add("agents", []any{"agents"}, "list at least one agent, such as:\n  agents:\n    - id: assistant\n      model: google/gemini-2.5-flash")
	}
	seen := make(map[string]int)
	for i, a := range f.Agents {
		at := func(keys ...any) []any { return append([]any{"agents", i}, keys...) }
		field := func(s string) string { return fmt.Sprintf("agents[%d].%s", i, s) }
		switch {
		case a.ID == "":
			add(fmt.Sprintf("agents[%d]", i), at(), "id is required: 1 to %d of A-Z a-z 0-9 . _ : -", memory.MaxIDLength)
		case !memory.ValidID(a.ID):
			add(field("id"), at("id"), "%q: use 1 to %d of A-Z a-z 0-9 . _ : - (it goes into URLs unescaped)", a.ID, memory.MaxIDLength)
		default:
			if j, dup := seen[a.ID]; dup {
				add(field("id"), at("id"), "%q is also the id of agents[%d]; ids must be unique", a.ID, j)
			}
			seen[a.ID] = i
		}
		for j, e := range a.Model {
			if p, m, ok := strings.Cut(e.Model, "/"); !ok || p == "" || m == "" {
				key, path := field("model"), at("model")
				if len(a.Model) > 1 {
					key, path = fmt.Sprintf("agents[%d].model[%d]", i, j), at("model", j)
				}
				add(key, path, "%q: write provider/model, such as google/gemini-2.5-flash or openai/gpt-4o-mini", e.Model)
			}
		}
		used := make(map[string]bool)
		for j, t := range a.Tools {
			e, err := f.parseToolEntry(t)
			key := fmt.Sprintf("agents[%d].tools[%d]", i, j)
			switch {
			case err != nil:
				add(key, at("tools", j), "%v", err)
			case used[t]:
				add(key, at("tools", j), "%s is listed twice", t)
			case e.tool != "" && used[e.server]:
				add(key, at("tools", j), "%s is one of %s's tools, and %s is listed whole already; keep one of the two", t, e.server, e.server)
			case e.server != "" && e.tool == "" && slices.ContainsFunc(a.Tools[:j], func(s string) bool { return strings.HasPrefix(s, e.server+"/") }):
				add(key, at("tools", j), "%s lists all its tools, and one of them is listed already; keep one of the two", t)
			case e.builtin != "" && a.Sandbox.None:
				add(key, at("tools", j), "%s works in the agent's sandbox, and this agent has sandbox: none; remove the tool, or the sandbox line", t)
			}
			used[t] = true
		}
		if u := a.FileUpload; u != nil {
			if a.Sandbox.None {
				add(field("fileUpload"), at("fileUpload"), "fileUpload puts files into the agent's sandbox, and this agent has sandbox: none; remove one of them")
			}
			u.validate(func(key string, path []any, format string, args ...any) {
				add(field("fileUpload."+key), at(append([]any{"fileUpload"}, path...)...), format, args...)
			})
		}
		switch a.Sandbox.Resolution {
		case "", PerResource, PerThread, Shared:
		default:
			add(field("sandbox.resolution"), at("sandbox", "resolution"), "%q: use %s (the default), %s or %s", a.Sandbox.Resolution, PerResource, PerThread, Shared)
		}
		validateSandbox(a.Sandbox, func(key, format string, args ...any) {
			add(field("sandbox."+key), at(append([]any{"sandbox"}, anyKeys(key)...)...), format, args...)
		})
		if a.MaxSteps < 0 {
			add(field("maxSteps"), at("maxSteps"), "%d: use a positive number, or leave it out for the default", a.MaxSteps)
		}
		if a.StreamRetry != nil && a.StreamRetry.Delay < 0 {
			add(field("streamRetry.delay"), at("streamRetry", "delay"), "%s: a delay cannot be negative", a.StreamRetry.Delay)
		}
		validateFiles(a.Files, func(key, format string, args ...any) {
			add(field("files."+key), at(append([]any{"files"}, anyKeys(key)...)...), format, args...)
		})
	}
	validateFiles(f.Files, func(key, format string, args ...any) {
		add("files."+key, append([]any{"files"}, anyKeys(key)...), format, args...)
	})
	f.validateMCP(func(field string, path []any, format string, args ...any) {
		add(field, path, format, args...)
	})
	if f.Refusals.Expiry < 0 {
		add("refusals.expiry", []any{"refusals", "expiry"}, "%s: use a positive duration such as 12h, or leave it out for 24h", f.Refusals.Expiry)
	}
	s := f.Server
	if s.Addr != "" {
		if _, _, err := net.SplitHostPort(s.Addr); err != nil {
			add("server.addr", []any{"server", "addr"}, "%q: write host:port, such as %s", s.Addr, DefaultAddr)
		}
	}
	belowServer := func(path []any, format string, args ...any) {
		add(fieldName(path), append([]any{"server"}, path...), format, args...)
	}
	validateAuth(s, belowServer)
	validateMetrics(s.Metrics, belowServer)
	validateServerMCP(s.MCP, belowServer)
	if s.MaxBodyBytes < 0 {
		add("server.maxBodyBytes", []any{"server", "maxBodyBytes"}, "%d: use a positive number of bytes, or leave it out for 50 MiB", s.MaxBodyBytes)
	}
	return errors.Join(errs...)
}

// validateSandbox checks the ids and limits of an agent's sandbox; add
// reports a mistake at a key below sandbox (such as "limits.cpuTime").
func validateSandbox(sb Sandbox, add func(key, format string, args ...any)) {
	for _, id := range []struct {
		key string
		v   int
	}{{"uid", sb.UID}, {"gid", sb.GID}} {
		if id.v < 0 || id.v > 4294967294 {
			add(id.key, "%d: use an unprivileged id from 1 to 4294967294, or leave it out for 2100000000", id.v)
		}
	}
	switch sb.Engine {
	case "", EngineLocal:
		for _, f := range []struct {
			key string
			set bool
		}{{"image", sb.Image != ""}, {"runtime", sb.Runtime != ""}, {"idleTimeout", sb.IdleTimeout != 0}, {"limits.cpus", sb.Limits.CPUs != 0}} {
			if f.set {
				add(f.key, "is a docker sandbox's setting: add engine: %s, or remove it", EngineDocker)
			}
		}
	case EngineDocker:
		for _, f := range []struct {
			key string
			set bool
		}{{"uid", sb.UID != 0}, {"gid", sb.GID != 0}, {"allowUnisolated", sb.AllowUnisolated}} {
			if f.set {
				add(f.key, "is a local sandbox's setting: a docker sandbox's commands run as uid 1000 in their container; remove it")
			}
		}
		if sb.OwnFilesystem {
			add("ownFilesystem", "is a local sandbox's setting: a docker sandbox's files are in a volume of the engine's; remove it")
		}
		if sb.IdleTimeout < 0 {
			add("idleTimeout", "%s: use a positive duration such as 30m, or leave it out for 15m", sb.IdleTimeout)
		}
		if sb.Limits.CPUs < 0 {
			add("limits.cpus", "%g: use a positive number of CPUs such as 0.5, or leave it out for 1", sb.Limits.CPUs)
		}
	default:
		add("engine", "%q: use %s (the default) or %s", sb.Engine, EngineLocal, EngineDocker)
	}
	l := sb.Limits
	if l.Processes < 0 {
		add("limits.processes", "%d: use a positive number, or leave it out for 256", l.Processes)
	}
	if l.Files < 0 {
		add("limits.files", "%d: use a positive number, or leave it out for 100000", l.Files)
	}
	if l.CPUTime < 0 {
		add("limits.cpuTime", "%s: use a positive duration such as 5m, or leave it out for 10m", l.CPUTime)
	}
}

// anyKeys splits a dotted key into the steps lineOf takes.
func anyKeys(key string) []any {
	var out []any
	for _, k := range strings.Split(key, ".") {
		out = append(out, k)
	}
	return out
}

func isTool(name string) bool { return slices.Contains(toolNames, name) }

// lineOf returns the line of the node at path (mapping keys and sequence
// indexes) in root, or of the deepest node found on the way; 0 without a
// document.
func lineOf(root *yaml.Node, path ...any) int {
	if root == nil {
		return 0
	}
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := n.Line
	for _, step := range path {
		var next *yaml.Node
		switch k := step.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						next = n.Content[i+1]
						break
					}
				}
			}
		case keyOf:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == string(k) {
						next = n.Content[i]
						break
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k < len(n.Content) {
				next = n.Content[k]
			}
		}
		if next == nil {
			return line
		}
		n, line = next, next.Line
	}
	return line
}
