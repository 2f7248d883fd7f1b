package config

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// UnmarshalYAML reads an agent's sandbox: the word none, or a mapping of
// its settings, checked as strictly as the rest of the file.
func (s *Sandbox) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Value == SandboxNone {
		*s = Sandbox{None: true, written: true}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: got %q; write none, or a mapping of %s",
			n.Line, n.Value, knownByTyp["Sandbox"])}}
	}
	// A node decodes on its own, without the file decoder's strictness:
	// unknown fields are looked for here.
	if errs := unknownFields(n, reflect.TypeFor[Sandbox]()); len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	type plain Sandbox
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*s = Sandbox(p)
	s.written = true
	return nil
}

// unknownFields returns, in the words of the file decoder (so that
// decodeError explains them alike), the keys of the mapping n that the
// struct type t has no field for, looking into the mappings of its struct
// fields too.
func unknownFields(n *yaml.Node, t reflect.Type) []string {
	fields := make(map[string]reflect.Type)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.IsExported() && name != "" && name != "-" {
			fields[name] = f.Type
		}
	}
	var errs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		ft, ok := fields[key.Value]
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("line %d: field %s not found in type config.%s", key.Line, key.Value, t.Name()))
		case ft.Kind() == reflect.Struct && val.Kind == yaml.MappingNode && !reflect.PointerTo(ft).Implements(unmarshalerType):
			errs = append(errs, unknownFields(val, ft)...)
		}
	}
	return errs
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
