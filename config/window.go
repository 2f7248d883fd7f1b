package config

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/keel-go/keel/agent"
)

// Window is an agent's lastMessages: a number of messages, or 0 or false
// for the whole thread. The zero value (left out) is the agent's default
// of 10.
type Window int

// WholeThread is the Window of lastMessages: 0 or false.
const WholeThread Window = -1

// UnmarshalYAML reads a whole number of messages, or false.
func (w *Window) UnmarshalYAML(n *yaml.Node) error {
	bad := &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: lastMessages %q: write a number of messages such as 10, or false (or 0) for the whole thread", n.Line, n.Value)}}
	if n.Kind != yaml.ScalarNode {
		return bad
	}
	if b, err := strconv.ParseBool(n.Value); err == nil && n.Tag == "!!bool" {
		if b {
			return bad
		}
		*w = WholeThread
		return nil
	}
	v, err := strconv.Atoi(n.Value)
	switch {
	case err != nil || v < 0:
		return bad
	case v == 0:
		*w = WholeThread
	default:
		*w = Window(v)
	}
	return nil
}

// lastMessages is w as agent.Config.LastMessages takes it.
func (w Window) lastMessages() int {
	if w == WholeThread {
		return agent.AllMessages
	}
	return int(w)
}
