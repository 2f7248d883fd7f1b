package config

import "fmt"

// Warnings returns what an operator should be told about a valid file,
// each with the file and line it concerns: an agent given sandbox
// settings that no tool and no fileUpload can reach, which therefore gets
// no sandbox. [File.Build] includes them in [Built].Warnings.
func (f *File) Warnings() []string {
	var out []string
	for i, a := range f.Agents {
		if a.Sandbox.None || a.hasSandbox() || !a.Sandbox.written && a.Sandbox == (Sandbox{}) {
			continue
		}
		e := &Error{File: f.path, Line: lineOf(f.root, "agents", i, "sandbox"), Field: fmt.Sprintf("agents[%d].sandbox", i),
			Message: fmt.Sprintf("agent %s has no tool and no fileUpload that reach its sandbox, so it gets none and a file "+
				"the model refuses becomes a placeholder; give it a tool such as %s, or write sandbox: %s", a.ID, ToolReadFile, SandboxNone)}
		out = append(out, e.Error())
	}
	return out
}
