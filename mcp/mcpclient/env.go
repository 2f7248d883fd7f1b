package mcpclient

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// ErrUnsetVariable is wrapped by the error of [Expand] (and so of [Start])
// when a value names an environment variable that is not set.
var ErrUnsetVariable = errors.New("mcpclient: environment variable not set")

var refNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// References returns the environment variables that s names as ${NAME},
// in order, or an error for a "${" that does not open such a reference.
// Nothing else in s is special: "$HOME" and "a$b" stay as written.
func References(s string) ([]string, error) {
	var names []string
	for rest := s; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			return names, nil
		}
		end := strings.IndexByte(rest[i:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%q opens ${ without closing it: write ${NAME}", s)
		}
		name := rest[i+2 : i+end]
		if !refNameRE.MatchString(name) {
			return nil, fmt.Errorf("%q names ${%s}: a variable's name is letters, digits and '_', not starting with a digit", s, name)
		}
		names = append(names, name)
		rest = rest[i+end+1:]
	}
}

// Expand returns s with each ${NAME} replaced by the variable's value, as
// lookup (such as os.LookupEnv) gives it. A variable that is not set is an
// error wrapping [ErrUnsetVariable]; one set to "" is replaced by "".
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	names, err := References(s)
	if err != nil || len(names) == 0 {
		return s, err
	}
	var b strings.Builder
	rest := s
	for _, name := range names {
		ref := "${" + name + "}"
		i := strings.Index(rest, ref)
		v, ok := lookup(name)
		if !ok {
			return "", fmt.Errorf("%w: %s", ErrUnsetVariable, name)
		}
		b.WriteString(rest[:i])
		b.WriteString(v)
		rest = rest[i+len(ref):]
	}
	b.WriteString(rest)
	return b.String(), nil
}

// InheritedEnv are the variables of keel's environment a stdio server
// gets without being given them, as the reference MCP clients do: what a
// program needs to find its tools and its home, and nothing that holds a
// secret (keel's API keys stay with keel). Give a server more with
// [Config].Env, such as {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}.
var InheritedEnv = []string{"HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "TZ", "USER"}

// environment returns the environment of a stdio server: the inherited
// variables that are set, then env expanded, in name order.
func environment(env map[string]string, lookup func(string) (string, bool)) ([]string, error) {
	out := make([]string, 0, len(InheritedEnv)+len(env))
	for _, name := range InheritedEnv {
		if _, given := env[name]; given {
			continue
		}
		if v, ok := lookup(name); ok {
			out = append(out, name+"="+v)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		if !refNameRE.MatchString(name) {
			return nil, fmt.Errorf("env: %q is not a variable name: use letters, digits and '_', not starting with a digit", name)
		}
		v, err := Expand(env[name], lookup)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", name, err)
		}
		out = append(out, name+"="+v)
	}
	return out, nil
}
