package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/keel-go/keel"
)

// MaxTitleLength is the longest title, in characters, that keel gives a
// thread.
const MaxTitleLength = 80

// titleTimeout bounds the model call that titles a thread.
const titleTimeout = 30 * time.Second

// titlePrompt asks the model for a title; the conversation's first user
// text follows it.
const titlePrompt = "Write a title for a conversation that begins with the user's message below: " +
	"at most 8 words, in the message's language, with no quotes and no final punctuation. " +
	"Answer with the title only."

// maxTitleInput is how much of the first user text is sent to the model
// that titles the thread: enough for a topic, never a whole document.
const maxTitleInput = 2000

// DefaultTitle is the title of a thread whose first turn is msgs: the
// text of its first user message, on one line (or, when it has no text,
// the names of its files), cut to [MaxTitleLength] characters at a word
// boundary with "…" marking the cut. "" when there is nothing to name it
// by.
func DefaultTitle(msgs []keel.Message) string {
	return cutTitle(firstUserText(msgs))
}

func firstUserText(msgs []keel.Message) string {
	for _, m := range msgs {
		if m.Role != keel.RoleUser || m.IsSystemReminder() {
			continue
		}
		if t := strings.TrimSpace(m.Text()); t != "" {
			return t
		}
		var names []string
		for _, p := range m.Parts {
			if f, ok := p.(keel.FilePart); ok && f.Filename != "" {
				names = append(names, f.Filename)
			}
		}
		if len(names) > 0 {
			return strings.Join(names, ", ")
		}
	}
	return ""
}

// cutTitle puts s on one line and cuts it to MaxTitleLength characters,
// at the last space that keeps a word whole (mid-word only when its first
// word alone is too long).
func cutTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= MaxTitleLength {
		return s
	}
	// Room for the ellipsis.
	cut := MaxTitleLength - 1
	if i := strings.LastIndexFunc(string(r[:cut+1]), unicode.IsSpace); i > 0 {
		return strings.TrimRightFunc(string(r[:cut+1])[:i], isTitleTrim) + "…"
	}
	return string(r[:cut]) + "…"
}

func isTitleTrim(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) && r != ')' && r != '"'
}

// titleJob is the titling a run's thread still needs after its first
// turn.
type titleJob struct {
	opts  runOptions
	input []keel.Message
}

// titleAfterTurn asks the model for a title of the thread the first turn
// of which was res, when the agent is configured to and the thread still
// has its default title (a title the caller gave is kept). It never fails
// the turn: a failure is logged, and the thread keeps its title.
func (a *Agent) titleAfterTurn(ctx context.Context, res *Result) {
	job := res.title
	if job == nil {
		return
	}
	res.title = nil
	ctx, cancel := context.WithTimeout(ctx, titleTimeout)
	defer cancel()
	if err := a.generateTitle(ctx, job); err != nil {
		a.logger.Warn("agent: the thread keeps its title: generating one failed",
			"agent", a.cfg.ID, "thread", job.opts.threadID, "err", err)
	}
}

func (a *Agent) generateTitle(ctx context.Context, job *titleJob) error {
	o := job.opts
	mem := a.cfg.Memory
	th, err := mem.GetThread(ctx, o.resourceID, o.threadID)
	if err != nil {
		return err
	}
	if th.Title != "" && th.Title != DefaultTitle(job.input) {
		return nil // the caller named it
	}
	text := firstUserText(job.input)
	if text == "" {
		return nil
	}
	if r := []rune(text); len(r) > maxTitleInput {
		text = string(r[:maxTitleInput])
	}
	resp, err := a.titleModelCall(ctx, text)
	if err != nil {
		return err
	}
	title := cutTitle(strings.Trim(firstLine(resp.Text()), " \t\"'`*#"))
	if title == "" {
		return fmt.Errorf("the model answered no title")
	}
	th.Title = title
	_, err = mem.UpdateThread(ctx, th)
	return err
}

// titleModelCall asks the agent's models, in order, for a title of text:
// a thread whose first model is down still gets its title from the one
// that answered the turn. It stops at the first answer, or when ctx ends.
func (a *Agent) titleModelCall(ctx context.Context, text string) (*keel.Response, error) {
	var errs []error
	for _, m := range a.models {
		resp, err := m.model.Generate(ctx, &keel.Request{Messages: []keel.Message{keel.SystemText(titlePrompt), keel.UserText(text)}})
		switch {
		case err == nil && resp != nil:
			return resp, nil
		case err == nil:
			err = fmt.Errorf("returned no response")
		}
		errs = append(errs, fmt.Errorf("model %s: %w", m.name, err))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// defaultTitle gives a thread made before its first turn (through the
// API, untitled) the default title of that turn. It is best effort: the
// turn goes on whatever happens.
func (a *Agent) defaultTitle(ctx context.Context, o runOptions, input []keel.Message) {
	title := DefaultTitle(input)
	if title == "" {
		return
	}
	th, err := a.cfg.Memory.GetThread(ctx, o.resourceID, o.threadID)
	if err == nil && th.Title == "" {
		th.Title = title
		_, err = a.cfg.Memory.UpdateThread(ctx, th)
	}
	if err != nil {
		a.logger.Warn("agent: the thread keeps no title: setting the default one failed",
			"agent", a.cfg.ID, "thread", o.threadID, "err", err)
	}
}
