package processor

import (
	"errors"
	"slices"
	"testing"

	"github.com/keel-go/keel"
)

// TestReplaceFiles: a replaced file's message gets new parts, in order,
// and the caller's slice is never written; an error leaves the message it
// was in as it was.
func TestReplaceFiles(t *testing.T) {
	a := keel.FilePart{Filename: "a.xlsx", Data: []byte("a")}
	b := keel.FilePart{Filename: "b.png", Data: []byte("b")}
	userParts := []keel.Part{keel.TextPart{Text: "see"}, a, b}
	prompt := []keel.Message{
		{Role: keel.RoleSystem, Parts: []keel.Part{a}},
		{Role: keel.RoleUser, Parts: userParts},
	}
	err := replaceFiles(prompt, carriesUserFiles, func(_ keel.Message, f keel.FilePart) ([]keel.Part, bool, error) {
		if f.Filename != "a.xlsx" {
			return nil, false, nil
		}
		return textParts([]string{"[note]", "text of a"}), true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []keel.Part{keel.TextPart{Text: "see"}, keel.TextPart{Text: "[note]"}, keel.TextPart{Text: "text of a"}, b}
	if !slices.EqualFunc(prompt[1].Parts, want, func(x, y keel.Part) bool { return partName(x) == partName(y) }) {
		t.Errorf("Got(user parts) = %v; want %v", prompt[1].Parts, want)
	}
	if _, ok := userParts[1].(keel.FilePart); !ok || len(userParts) != 3 {
		t.Errorf("the caller's parts were written: %v", userParts)
	}
	if _, ok := prompt[0].Parts[0].(keel.FilePart); !ok {
		t.Errorf("Got(system parts) = %v; want the file left (not a role that carries user files)", prompt[0].Parts)
	}

	boom := errors.New("boom")
	prompt = []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{a, b}}}
	err = replaceFiles(prompt, isUser, func(_ keel.Message, f keel.FilePart) ([]keel.Part, bool, error) {
		if f.Filename == "b.png" {
			return nil, false, boom
		}
		return nil, true, nil
	})
	if !errors.Is(err, boom) || len(prompt[0].Parts) != 2 {
		t.Errorf("Got(%v, %d parts); want boom and the message's two parts as they were", err, len(prompt[0].Parts))
	}
}

func partName(p keel.Part) string {
	switch p := p.(type) {
	case keel.TextPart:
		return "text:" + p.Text
	case keel.FilePart:
		return "file:" + p.Filename
	}
	return "?"
}
