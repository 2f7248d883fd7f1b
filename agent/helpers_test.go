package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
)

type keelReply = keeltest.Reply

// mode runs an agent through one of its two front ends and returns the
// result, and for a stream every event it sent.
type mode struct {
	name string
	run  func(ctx context.Context, a *agent.Agent, input []keel.Message, opts ...agent.RunOption) (*agent.Result, []agent.Event, error)
}

var modes = []mode{
	{"generate", func(ctx context.Context, a *agent.Agent, input []keel.Message, opts ...agent.RunOption) (*agent.Result, []agent.Event, error) {
		res, err := a.Generate(ctx, input, opts...)
		return res, nil, err
	}},
	{"stream", func(ctx context.Context, a *agent.Agent, input []keel.Message, opts ...agent.RunOption) (*agent.Result, []agent.Event, error) {
		var events []agent.Event
		var res *agent.Result
		for ev, err := range a.Stream(ctx, input, opts...) {
			if err != nil {
				return nil, events, err
			}
			events = append(events, ev)
			if ev.Type == agent.EventFinish {
				res = ev.Result
			}
		}
		return res, events, nil
	}},
}

// forModes runs fn once per front end, as a subtest.
func forModes(t *testing.T, fn func(t *testing.T, m mode)) {
	t.Helper()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { fn(t, m) })
	}
}

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

func xlsx(name string) keel.FilePart {
	return keel.FilePart{Data: []byte("PK\x03\x04 fake spreadsheet " + name), MediaType: xlsxType, Filename: name}
}

func userMsg(parts ...keel.Part) keel.Message {
	return keel.Message{Role: keel.RoleUser, Parts: parts}
}

// userParts describes the parts of the user messages of a prompt: text
// parts as their text, file parts as "file:<media type>".
func userParts(prompt []keel.Message) []string {
	var out []string
	for _, m := range prompt {
		if m.Role != keel.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case keel.TextPart:
				out = append(out, p.Text)
			case keel.FilePart:
				out = append(out, "file:"+p.MediaType)
			}
		}
	}
	return out
}

func countFiles(prompt []keel.Message) int {
	n := 0
	for _, m := range prompt {
		for _, p := range m.Parts {
			if _, ok := p.(keel.FilePart); ok {
				n++
			}
		}
	}
	return n
}

// refuseUnreadable answers like an SDK that encodes only images, PDFs and
// text: any other file in the prompt is refused by media type, before
// anything is sent.
func refuseUnreadable(answer string) func(req *keel.Request) keelReply {
	return func(req *keel.Request) keelReply {
		for _, m := range req.Messages {
			for _, p := range m.Parts {
				if f, ok := p.(keel.FilePart); ok && !keel.IsReadable(f.MediaType) {
					return keelReply{Err: &keel.UnsupportedFunctionalityError{Functionality: "file part media type " + f.MediaType}}
				}
			}
		}
		return keelReply{Text: answer}
	}
}

func joinEvents(events []agent.Event, typ agent.EventType) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Type == typ {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

// refusingModel is a scripted model that refuses unreadable files on every
// call (see refuseUnreadable) and otherwise answers with answer.
func refusingModel(answer string) *keeltest.Model {
	m := keeltest.NewModel(keelReply{Respond: refuseUnreadable(answer)})
	m.RepeatLast = true
	return m
}
