package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxFileSize is the largest keel.yaml [Load] reads: a configuration is a
// few kilobytes, and a mistaken path to a large file should fail at once.
const MaxFileSize = 1 << 20

// Error is one mistake in a configuration file: where it is and what to do
// about it. [Load] and [Parse] return one, or several joined with
// errors.Join.
type Error struct {
	// File is the file's path; "" when parsed from memory.
	File string
	// Line is the 1-based line of the mistake; 0 when unknown.
	Line int
	// Field is the setting concerned, such as "agents[0].tools[1]"; "" for
	// the file as a whole.
	Field string
	// Message says what is wrong and what to write instead.
	Message string
}

// Error returns "config: FILE:LINE: FIELD: MESSAGE", leaving out what is
// unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	file := cmp.Or(e.File, DefaultFile)
	b.WriteString(file)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Load reads and checks the configuration file at path. A missing file is
// an error wrapping [os.ErrNotExist], so that callers can fall back to
// [Default] when the file was not asked for by name.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: load: %w", err)
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: load %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Message: fmt.Sprintf("the file is over %d bytes; is it really a keel.yaml?", MaxFileSize)}
	}
	return Parse(data, path)
}

// Parse decodes and checks a configuration. name is the file's name for
// error messages ("" for [DefaultFile]). Unknown fields, values of the
// wrong type and invalid settings are [*Error]s with line numbers.
func Parse(data []byte, name string) (*File, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, syntaxError(name, err)
	}
	f := &File{path: name, root: &root}
	if len(bytes.TrimSpace(data)) == 0 || root.Kind == 0 {
		return nil, &Error{File: name, Message: "the file is empty: list at least one agent under agents:"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(f); err != nil {
		return nil, decodeError(name, err)
	}
	if err := f.validate(&root); err != nil {
		return nil, err
	}
	return f, nil
}

var (
	lineRE    = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	unknownRE = regexp.MustCompile(`^field (\S+) not found in type config\.(\w+)$`)
	cannotRE  = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (.*)$")
	// cannotBareRE is yaml's wording for a mapping or a list, which it
	// does not quote.
	cannotBareRE = regexp.MustCompile(`^cannot unmarshal !!(\w+) into (.*)$`)
	typeNames    = map[string]string{"int": "a whole number", "int64": "a whole number", "string": "text", "bool": "true or false", "time.Duration": "a duration such as 3s", "[]string": "a list", "[]config.Agent": "a list of agents", "map[string]string": "a mapping of names to text", "map[string]config.MCPServer": "a mapping of server names to servers, such as everything: {command: npx, args: [-y, \"@modelcontextprotocol/server-everything\"]}"}
	tagNames     = map[string]string{"str": "text", "int": "a number", "float": "a number", "bool": "true/false", "map": "a mapping", "seq": "a list", "null": "nothing"}
	knownByTyp   = map[string]string{
		"File":          "agents, server, files, refusals, mcp",
		"MCPServer":     "command, args, env, url, headers, timeout, optional",
		"Agent":         "id, name, description, instructions, model, fallbackOnCallerErrors, tools, sandbox, fileUpload, errorProcessorDefaults, streamRetry, maxSteps, maxProcessorRetries, files, lastMessages, generateTitle",
		"Files":         "convert, maxChars, fetch, blameReadable, describeWith, comments, providerFiles",
		"Fetch":         "allowHosts, maxSize, timeout, keepCopy, resolve",
		"Refusals":      "remember, expiry",
		"Sandbox":       "engine, image, runtime, idleTimeout, resolution, allowUnisolated, ownFilesystem, uid, gid, limits",
		"SandboxLimits": "processes, memory, fileSize, disk, files, cpuTime, cpus",
		"StreamRetry":   "maxRetries, delay",
		"FileUpload":    "mediaTypes, extensions, maxSize",
		"Server":        "addr, maxBodyBytes, auth, cors, tokenEnv",
		"Auth":          "tokenEnv, jwt",
		"JWT":           "secretEnv, jwks, issuer, audience, resourceClaim, leeway",
		"CORS":          "origins",
	}
)

// syntaxError turns a YAML syntax error into an [*Error] with its line.
func syntaxError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	return &Error{File: name, Line: line, Message: "not valid YAML: " + msg}
}

// decodeError turns yaml's type errors (unknown fields, wrong types) into
// [*Error]s that say what is expected.
func decodeError(name string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return syntaxError(name, err)
	}
	var errs []error
	for _, s := range te.Errors {
		e := &Error{File: name, Message: s}
		if m := lineRE.FindStringSubmatch(s); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Message = m[2]
		}
		if m := unknownRE.FindStringSubmatch(e.Message); m != nil {
			e.Message = fmt.Sprintf("unknown field %q; the fields here are: %s", m[1], knownByTyp[m[2]])
		} else if m := cannotRE.FindStringSubmatch(e.Message); m != nil {
			e.Message = fmt.Sprintf("got %s %q; write %s here", cmp.Or(tagNames[m[1]], m[1]), m[2], wanted(m[3]))
		} else if m := cannotBareRE.FindStringSubmatch(e.Message); m != nil {
			want := wanted(m[2]) + " here"
			if m[2] == "[]config.Agent" {
				want = "a list of agents here, each beginning with \"- id: NAME\", such as\n  agents:\n    - id: analyst\n      model: google/gemini-2.5-flash"
			}
			e.Message = "got " + cmp.Or(tagNames[m[1]], m[1]) + "; write " + want
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// wanted says what a value of the Go type typ, as yaml.v3 names it, is
// written as.
func wanted(typ string) string {
	if want := typeNames[typ]; want != "" {
		return want
	}
	if fields, ok := knownByTyp[strings.TrimPrefix(typ, "config.")]; ok {
		return "a mapping of " + fields
	}
	return typ
}
