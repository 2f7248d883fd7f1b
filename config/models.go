package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Models is an agent's model: setting, its models in order. In keel.yaml
// it is one model string ("google/gemini-2.5-flash"), or a list whose
// items are model strings or mappings of the fields of [ModelEntry]:
//
//	model: [google/gemini-2.5-flash, openai/gpt-4o-mini]
//	model:
//	  - model: google/gemini-2.5-pro
//	    maxRetries: 1
//	  - openai/gpt-4o-mini
//
// Each call goes to the first; one that fails in a way the error
// processors cannot repair on that model goes on to the next (see
// agent.Config.Models).
type Models []ModelEntry

// ModelEntry is one model of [Models].
type ModelEntry struct {
	// Model is a model string, provider/model.
	Model string `yaml:"model"`
	// MaxRetries caps the processor-triggered retries on this model
	// before the next takes over; 0 means the agent's
	// maxProcessorRetries, a negative value none.
	MaxRetries int `yaml:"maxRetries"`
}

// Model returns a list of the one model s; "" gives none.
func Model(s string) Models {
	if s == "" {
		return nil
	}
	return Models{{Model: s}}
}

// String returns the model strings joined by ", ".
func (m Models) String() string {
	names := make([]string, len(m))
	for i, e := range m {
		names[i] = e.Model
	}
	return strings.Join(names, ", ")
}

// UnmarshalYAML reads a model string or a list; a mistake is reported
// with its line.
func (m *Models) UnmarshalYAML(n *yaml.Node) error {
	bad := func(n *yaml.Node, format string, args ...any) error {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: ", n.Line) + fmt.Sprintf(format, args...)}}
	}
	entry := func(n *yaml.Node) (ModelEntry, error) {
		switch n.Kind {
		case yaml.ScalarNode:
			return ModelEntry{Model: n.Value}, nil
		case yaml.MappingNode:
			var e ModelEntry
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				switch k.Value {
				case "model":
					if v.Kind != yaml.ScalarNode {
						return e, bad(v, "write a model string such as google/gemini-2.5-flash here")
					}
					e.Model = v.Value
				case "maxRetries":
					if err := v.Decode(&e.MaxRetries); err != nil {
						return e, bad(v, "write a whole number of retries here")
					}
				default:
					return e, bad(k, "unknown field %q; the fields here are: model, maxRetries", k.Value)
				}
			}
			if e.Model == "" {
				return e, bad(n, "each model of the list needs its model: provider/model")
			}
			return e, nil
		}
		return ModelEntry{}, bad(n, "write a model string, or a mapping of model and maxRetries, here")
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*m = nil
			return nil
		}
		e, err := entry(n)
		*m = Models{e}
		return err
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return bad(n, "the list of models is empty: name at least one, or leave model out for the default")
		}
		out := make(Models, 0, len(n.Content))
		for _, item := range n.Content {
			e, err := entry(item)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		*m = out
		return nil
	}
	return bad(n, "write a model string such as google/gemini-2.5-flash, or a list of them, here")
}
