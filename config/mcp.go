package config

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/tool"
)

// MCPServer is one MCP server of the file's mcp:, whose tools agents may
// name: a command keel runs and speaks to over its standard input and
// output, or the URL of a streamable-HTTP server. See package
// mcp/mcpclient for how keel runs it.
type MCPServer struct {
	// Command is the program of a stdio server, found in PATH; Args its
	// arguments, as written.
	Command string   `yaml:"command"`
	Args    []string `yaml:"args"`
	// Env is added to the server's environment, which holds only PATH,
	// HOME and the like of keel's own. A value may name keel's
	// variables as ${NAME}.
	Env map[string]string `yaml:"env"`
	// URL is the endpoint of a streamable-HTTP server.
	URL string `yaml:"url"`
	// Headers are sent with every request to URL; a value may name
	// variables, such as "Bearer ${SEARCH_TOKEN}".
	Headers map[string]string `yaml:"headers"`
	// Timeout bounds each call of the server's tools; 0 means 60s.
	Timeout time.Duration `yaml:"timeout"`
	// Optional lets keel start without the server when it cannot start,
	// with a warning; its tools are then missing until keel starts again.
	// Without it, a server that cannot start stops keel from starting.
	Optional bool `yaml:"optional"`
}

// mcpNames returns the file's MCP server names, sorted, so that errors
// come in one order.
func (f *File) mcpNames() []string { return slices.Sorted(maps.Keys(f.MCP)) }

// validateMCP checks the servers of mcp:; add reports a mistake at a key
// below mcp (such as "everything.url").
func (f *File) validateMCP(add func(field string, path []any, format string, args ...any)) {
	for _, name := range f.mcpNames() {
		s := f.MCP[name]
		at := func(keys ...any) []any { return append([]any{"mcp", name}, keys...) }
		field := func(key string) string { return "mcp." + name + key }
		serverAt := func() []any { return []any{"mcp", keyOf(name)} }
		switch {
		case !mcpclient.ValidServerName(name):
			add(field(""), serverAt(), "%q: name a server with 1 to %d letters, digits, '_' or '-' (its tools are named %s_TOOL)",
				name, mcpclient.MaxServerName, name)
			continue
		case isTool(name):
			add(field(""), serverAt(), "%q is a sandbox tool's name; name the server otherwise", name)
			continue
		}
		switch {
		case s.Command == "" && s.URL == "":
			add(field(""), serverAt(), "give command (a program keel runs, such as npx) or url (a streamable-HTTP server)")
		case s.Command != "" && s.URL != "":
			add(field(""), serverAt(), "give command or url, not both")
		case s.Command != "" && len(s.Headers) > 0:
			add(field(".headers"), at("headers"), "headers go to an HTTP server; pass a stdio server what it needs with env")
		case s.URL != "" && (len(s.Env) > 0 || len(s.Args) > 0):
			add(field(""), serverAt(), "env and args go to a server keel runs; an HTTP server takes headers")
		}
		if s.URL != "" {
			if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				add(field(".url"), at("url"), "%q: write an http:// or https:// URL, such as https://mcp.example.com/mcp", s.URL)
			}
		}
		if s.Timeout < 0 {
			add(field(".timeout"), at("timeout"), "%s: use a positive duration such as 30s, or leave it out for 60s", s.Timeout)
		}
		for _, key := range slices.Sorted(maps.Keys(s.Env)) {
			if !envNameRE.MatchString(key) {
				add(field(".env."+key), at("env", key), "%q is not a variable name: use letters, digits and '_', not starting with a digit", key)
			} else if _, err := mcpclient.References(s.Env[key]); err != nil {
				add(field(".env."+key), at("env", key), "%v", err)
			}
		}
		for _, key := range slices.Sorted(maps.Keys(s.Headers)) {
			if _, err := mcpclient.References(s.Headers[key]); err != nil {
				add(field(".headers."+key), at("headers", key), "%v", err)
			}
		}
	}
}

// keyOf is a step of lineOf that stops at the key name of a mapping, so
// that a server's line is the one that names it, not the first of its
// settings.
type keyOf string

// toolEntry is what an agent's tools entry names.
type toolEntry struct {
	builtin string // a sandbox tool
	server  string // an MCP server: all its tools, or Tool alone
	tool    string
}

// parseToolEntry reads an agent's tools entry, or says what is wrong
// with it.
func (f *File) parseToolEntry(entry string) (toolEntry, error) {
	if isTool(entry) {
		return toolEntry{builtin: entry}, nil
	}
	server, tool, one := strings.Cut(entry, "/")
	if _, ok := f.MCP[server]; ok && (!one || tool != "") {
		return toolEntry{server: server, tool: tool}, nil
	}
	known := strings.Join(toolNames, ", ")
	if len(f.MCP) > 0 {
		known += ", the servers of mcp: (" + strings.Join(f.mcpNames(), ", ") + "), or one tool of a server, such as " +
			f.mcpNames()[0] + "/TOOL"
	}
	if one && server != "" {
		if _, ok := f.MCP[server]; !ok {
			return toolEntry{}, fmt.Errorf("unknown tool %q: mcp: has no server %q; the tools are %s", entry, server, known)
		}
	}
	return toolEntry{}, fmt.Errorf("unknown tool %q; the tools are %s", entry, known)
}

// usedServers returns the MCP servers the agents at the indexes chosen
// name, sorted.
func (f *File) usedServers(chosen []int) []string {
	var out []string
	for _, i := range chosen {
		for _, entry := range f.Agents[i].Tools {
			if e, err := f.parseToolEntry(entry); err == nil && e.server != "" && !slices.Contains(out, e.server) {
				out = append(out, e.server)
			}
		}
	}
	slices.Sort(out)
	return out
}

// startServers starts the servers named, at once, each once. A server
// that cannot start is an [*Error] at its line, or a warning when it is
// optional; on an error, the servers started are stopped.
func (f *File) startServers(ctx context.Context, names []string, opts BuildOptions, logger *slog.Logger) (map[string]*mcpclient.Client, []string, error) {
	type started struct {
		c   *mcpclient.Client
		err error
	}
	results := make([]started, len(names))
	var wg sync.WaitGroup
	for k, name := range names {
		s := f.MCP[name]
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := mcpclient.Start(ctx, mcpclient.Config{Name: name, Command: s.Command, Args: s.Args, Env: s.Env,
				URL: s.URL, Headers: s.Headers, Timeout: s.Timeout, LookupEnv: opts.LookupEnv, Logger: logger})
			results[k] = started{c, err}
		}()
	}
	wg.Wait()
	clients := make(map[string]*mcpclient.Client, len(names))
	var (
		warns []string
		errs  []error
	)
	for k, name := range names {
		r := results[k]
		if r.err == nil {
			clients[name] = r.c
			continue
		}
		e := &Error{File: f.path, Line: lineOf(f.root, "mcp", keyOf(name)), Field: "mcp." + name,
			Message: fmt.Sprintf("the server did not start: %v", unwrapStart(r.err))}
		if f.MCP[name].Optional {
			e.Message += "; it is optional, so keel goes on without its tools until it starts again"
			warns = append(warns, e.Error())
			continue
		}
		e.Message += "; fix it, or write optional: true to start without it"
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		for _, c := range clients {
			c.Close()
		}
		return nil, nil, errors.Join(errs...)
	}
	return clients, warns, nil
}

// unwrapStart drops the client's prefix, which names the server the
// error's field names already.
func unwrapStart(err error) error {
	var se *mcpclient.StartError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}

// toolSets returns the tool sets of agent i, which has the sandbox tools
// builtins, from the servers started. A tool a server does not offer, or
// a name two tools share, is an [*Error] at the tools entry that brought
// it.
func (f *File) toolSets(i int, builtins []tool.Tool, clients map[string]*mcpclient.Client) ([]tool.Set, error) {
	a := f.Agents[i]
	from := make(map[string]string, len(builtins))
	for _, t := range builtins {
		from[t.Name] = t.Name
	}
	var sets []tool.Set
	for j, entry := range a.Tools {
		e, err := f.parseToolEntry(entry)
		if err != nil || e.server == "" {
			continue
		}
		fail := func(format string, args ...any) error {
			return &Error{File: f.path, Line: lineOf(f.root, "agents", i, "tools", j), Field: fmt.Sprintf("agents[%d].tools[%d]", i, j),
				Message: fmt.Sprintf(format, args...)}
		}
		c := clients[e.server]
		if c == nil {
			continue // optional, and not started: warned of
		}
		var set tool.Set = c
		if e.tool != "" {
			ok, offered := c.Has(e.tool)
			if !ok {
				return nil, fail("server %s offers no tool %q; its tools are: %s", e.server, e.tool, strings.Join(offered, ", "))
			}
			set = c.Only(e.tool)
		}
		for _, t := range set.Tools() {
			if prev, dup := from[t.Name]; dup {
				return nil, fail("%s brings a tool named %s, as %s does; a model cannot tell them apart: rename a server", entry, t.Name, prev)
			}
			from[t.Name] = entry
		}
		sets = append(sets, set)
	}
	return sets, nil
}

// mcpLine says which MCP servers run, and with how many tools, for the
// operator.
func mcpLine(clients []*mcpclient.Client) string {
	if len(clients) == 0 {
		return ""
	}
	parts := make([]string, len(clients))
	for k, c := range clients {
		st := c.Status()
		parts[k] = fmt.Sprintf("%s (%s, %d tools)", st.Name, st.Transport, len(st.Tools))
	}
	return "mcp servers: " + strings.Join(parts, ", ")
}
