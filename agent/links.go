package agent

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"net/url"
	"path"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/fetch"
	"github.com/keel-go/keel/processor"
)

// MetadataLinkFailures is the key, in a stored message's metadata, of the
// links of its files that could not be downloaded: an object from each
// link to the reason, a sentence. Such a link is not tried again on later
// turns: the model gets the same "[File not downloaded]" note at once.
// Remove the entry to have it tried again.
const MetadataLinkFailures = "linkFailures"

// Recovery action and outcome of a link that was not downloaded.
const (
	// RecoveryLinkProcessor is the Processor of the [processor.Recovery]
	// of a link left out.
	RecoveryLinkProcessor = "link-download"
	// OutcomeNotDownloaded: the model got the "[File not downloaded]"
	// note with the Reason.
	OutcomeNotDownloaded = "not-downloaded"
)

// noLinks downloads nothing: every link is refused, before anything is
// sent, with a reason that says no host is allowed.
var noLinks = func() *fetch.Client {
	c, err := fetch.New(fetch.Options{})
	if err != nil {
		panic(err) // no options: cannot fail
	}
	return c
}()

// linkClient is the agent's downloader.
func (a *Agent) linkClient() *fetch.Client { return cmp.Or(a.cfg.Links, noLinks) }

// resolveLinks replaces, in prompt (a clone, changed in place), each
// file given by http(s) link that model's provider does not fetch itself
// with the file's bytes, downloaded once per run, or with a note saying
// why it could not be. Only the run's end is an error: a link that
// fails leaves the turn going.
func (r *runner) resolveLinks(ctx context.Context, prompt []keel.Message, model keel.Model) error {
	for i := range prompt {
		m := &prompt[i]
		for j, p := range m.Parts {
			f, ok := p.(keel.FilePart)
			if !ok || f.Source() != keel.SourceHTTP || keel.FetchesLink(model, f) {
				continue
			}
			part, err := r.linkPart(ctx, *m, f)
			if err != nil {
				return err
			}
			m.Parts[j] = part
		}
	}
	return nil
}

// linkPart is what the model gets for f, a link of m.
func (r *runner) linkPart(ctx context.Context, m keel.Message, f keel.FilePart) (keel.Part, error) {
	key := f.URL + "\x00" + keel.NormalizeMediaType(f.MediaType)
	if p, ok := r.links[key]; ok {
		return p, nil
	}
	if r.links == nil {
		r.links = make(map[string]keel.Part)
	}
	name := f.Filename
	if name == "" {
		if u, err := url.Parse(f.URL); err == nil && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
			name = path.Base(u.Path)
		}
	}
	if reason, ok := linkFailure(m, f.URL); ok {
		p := keel.TextPart{Text: processor.NotDownloadedNote(name, f.MediaType, reason)}
		r.links[key] = p
		return p, nil
	}
	file, err := r.a.linkClient().Get(ctx, f.URL, f.MediaType)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		reason := "The download failed."
		var fe *fetch.Error
		if errors.As(err, &fe) {
			reason = fe.Reason()
		}
		p := keel.TextPart{Text: processor.NotDownloadedNote(name, f.MediaType, reason)}
		r.links[key] = p
		r.run.Report(processor.Recovery{Processor: RecoveryLinkProcessor, Action: OutcomeNotDownloaded,
			Files: []processor.RecoveredFile{{Name: name, MediaType: keel.NormalizeMediaType(f.MediaType), Outcome: OutcomeNotDownloaded, Reason: reason}}})
		// A link refused by the rules alone cost nothing and may pass once
		// the configuration changes: only what was tried is remembered.
		if fe == nil || !fe.Refused() {
			r.updateStored(ctx, m.ID, func(sm *keel.Message) { rememberFailure(sm, f.URL, reason) })
		}
		return p, nil
	}
	mt := cmp.Or(f.MediaType, file.MediaType)
	p := keel.FilePart{Data: file.Data, MediaType: mt, Filename: name}
	r.links[key] = p
	if r.a.cfg.KeepLinkCopies {
		r.updateStored(ctx, m.ID, func(sm *keel.Message) {
			for k, q := range sm.Parts {
				if g, ok := q.(keel.FilePart); ok && g.URL == f.URL && g.Data == nil {
					sm.Parts[k] = p
				}
			}
		})
	}
	return p, nil
}

// linkFailure returns the reason a link of m was remembered not to
// download, if it was.
func linkFailure(m keel.Message, link string) (string, bool) {
	failures, _ := m.Metadata[MetadataLinkFailures].(map[string]any)
	reason, ok := failures[link].(string)
	return reason, ok
}

// rememberFailure records on m, a clone, that link could not be
// downloaded, for reason.
func rememberFailure(m *keel.Message, link, reason string) {
	old, _ := m.Metadata[MetadataLinkFailures].(map[string]any)
	failures := make(map[string]any, len(old)+1)
	maps.Copy(failures, old)
	failures[link] = reason
	*m = withMetadata(*m, MetadataLinkFailures, failures)
}

// updateStored changes the stored message with ID id, of the thread's
// history or of the turn, with change (given a clone) and stores it
// again. A message not stored (no memory, no ID) is left alone; a store
// that fails is logged: the turn goes on, and a later turn downloads
// again.
func (r *runner) updateStored(ctx context.Context, id string, change func(*keel.Message)) {
	if id == "" || r.a.cfg.Memory == nil || r.opts.threadID == "" {
		return
	}
	for _, list := range [][]keel.Message{r.history, r.input} {
		for i := range list {
			if list[i].ID != id {
				continue
			}
			m := list[i].Clone()
			change(&m)
			stored, err := r.a.cfg.Memory.SaveMessages(ctx, r.opts.resourceID, r.opts.threadID, []keel.Message{m})
			if err != nil || len(stored) != 1 {
				r.a.logger.Warn("agent: a link's outcome not stored; a later turn tries it again", "agent", r.a.cfg.ID,
					"run", r.opts.runID, "message", id, "err", err)
				return
			}
			list[i] = stored[0]
			return
		}
	}
}
