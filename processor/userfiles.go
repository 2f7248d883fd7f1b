package processor

import (
	"iter"

	"github.com/keel-go/keel"
)

// The two walks of a prompt's files that every processor here makes:
// reading them, and putting other parts in their place.

// carriesUserFiles reports the roles whose files the unsupported-file
// handler takes out: a user's, and the files tools returned (an MCP
// tool's image), which come in tool messages after the tool's result.
func carriesUserFiles(role keel.Role) bool { return role == keel.RoleUser || role == keel.RoleTool }

// isUser reports the role whose files FileUpload puts in the sandbox.
func isUser(role keel.Role) bool { return role == keel.RoleUser }

// anyRole reports every role.
func anyRole(keel.Role) bool { return true }

// filesOf yields the file parts of msgs' messages whose role roles
// accepts, in order.
func filesOf(msgs []keel.Message, roles func(keel.Role) bool) iter.Seq[keel.FilePart] {
	return func(yield func(keel.FilePart) bool) {
		for _, m := range msgs {
			if !roles(m.Role) {
				continue
			}
			for _, p := range m.Parts {
				if f, ok := p.(keel.FilePart); ok && !yield(f) {
					return
				}
			}
		}
	}
}

// replaceFiles puts other parts in the place of the file parts of the
// prompt's messages whose role roles accepts: replace, given the message
// as it was and the file, returns the parts that take the file's place,
// and false to leave it. A message whose file
// is replaced gets a new slice of parts (the prompt's parts may be shared
// with the caller's messages, and a file may become several parts); the
// others keep theirs. An error of replace stops the walk: the messages
// before keep their new parts, the one it was in keeps its old ones.
func replaceFiles(prompt []keel.Message, roles func(keel.Role) bool, replace func(keel.Message, keel.FilePart) ([]keel.Part, bool, error)) error {
	for i := range prompt {
		m := &prompt[i]
		if !roles(m.Role) {
			continue
		}
		var parts []keel.Part // the rewritten parts, once a file is replaced
		for j, p := range m.Parts {
			f, ok := p.(keel.FilePart)
			var with []keel.Part
			if ok {
				var err error
				if with, ok, err = replace(*m, f); err != nil {
					return err
				}
			}
			switch {
			case ok && parts == nil:
				parts = append(append(make([]keel.Part, 0, len(m.Parts)+len(with)-1), m.Parts[:j]...), with...)
			case ok:
				parts = append(parts, with...)
			case parts != nil:
				parts = append(parts, p)
			}
		}
		if parts != nil {
			m.Parts = parts
		}
	}
	return nil
}

// textParts returns texts as text parts.
func textParts(texts []string) []keel.Part {
	out := make([]keel.Part, len(texts))
	for i, t := range texts {
		out[i] = keel.TextPart{Text: t}
	}
	return out
}
