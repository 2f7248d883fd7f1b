package processor

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"net/url"
	"path"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/fetch"
	"github.com/keel-go/keel/internal/cleantext"
)

// LinkDownloadID is the ID of the [LinkDownload] processor, and the
// Processor of the [Recovery] of a link left out.
const LinkDownloadID = "link-download"

// OutcomeNotDownloaded is the outcome of a link that was not downloaded:
// the model got the "[File not downloaded]" note with the Reason.
const OutcomeNotDownloaded = "not-downloaded"

// MetadataLinkFailures is the key, in a stored message's metadata, of the
// links of its files that could not be downloaded: an object from each
// link to the reason, a sentence. Such a link is not tried again on later
// turns: the model gets the same "[File not downloaded]" note at once.
// Remove the entry to have it tried again.
const MetadataLinkFailures = "linkFailures"

// noLinks downloads nothing: every link is refused, before anything is
// sent, with a reason that says no host is allowed.
var noLinks = func() *fetch.Client {
	c, err := fetch.New(fetch.Options{})
	if err != nil {
		panic(err) // no options: cannot fail
	}
	return c
}()

// LinkDownload is the LLM-request rewriter that gives the model the bytes
// of each file sent as an http(s) link its provider does not fetch itself
// ([keel.FetchesLink]), so that every later rule for files (the
// unsupported-file handler, converters, uploads) applies to them. It runs
// before every other rewriter; the agent puts it first. Each link is
// downloaded once per run.
//
// A link that cannot be downloaded (a host not allowed, a private
// address, over the size cap, a dead or expired link) becomes a
// [NotDownloadedNote] with the reason, reported as a [Recovery] with
// [OutcomeNotDownloaded], and the turn goes on. Unless the rules alone
// refused it, the failure is kept on the stored message
// ([MetadataLinkFailures], through [Run.UpdateStored]) so that later turns
// do not try again.
type LinkDownload struct {
	// Client downloads by its rules; nil downloads nothing: every link
	// becomes the note, saying that no host is allowed.
	Client *fetch.Client
	// KeepCopies stores a downloaded file in its message in place of the
	// link, so that later turns send the copy. Off, the stored message
	// keeps the link and each turn downloads it again.
	KeepCopies bool
}

// ID returns [LinkDownloadID].
func (*LinkDownload) ID() string { return LinkDownloadID }

// RewriteLLMRequest replaces each link of the prompt that the model's
// provider does not fetch with the file's bytes or with a note. Only the
// run's end is an error.
func (l *LinkDownload) RewriteLLMRequest(ctx context.Context, req *LLMRequest) error {
	return replaceFiles(req.Prompt, anyRole, func(m keel.Message, f keel.FilePart) ([]keel.Part, bool, error) {
		if f.Source() != keel.SourceHTTP || keel.FetchesLink(req.Model, f) {
			return nil, false, nil
		}
		p, err := l.part(ctx, req.Run, m, f)
		return []keel.Part{p}, err == nil, err
	})
}

// part is what the model gets for f, a link of m.
func (l *LinkDownload) part(ctx context.Context, run *Run, m keel.Message, f keel.FilePart) (keel.Part, error) {
	parts := StateOf[map[string]keel.Part](run, l) // what each link gave, by link and media type
	key := f.URL + "\x00" + keel.NormalizeMediaType(f.MediaType)
	if p, ok := (*parts)[key]; ok {
		return p, nil
	}
	keep := func(p keel.Part) keel.Part { setIn(parts, key, p); return p }
	name := f.Filename
	if name == "" {
		if u, err := url.Parse(f.URL); err == nil && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
			name = path.Base(u.Path)
		}
	}
	failures, _ := m.Metadata[MetadataLinkFailures].(map[string]any)
	if reason, ok := failures[f.URL].(string); ok {
		return keep(keel.TextPart{Text: NotDownloadedNote(name, f.MediaType, reason)}), nil
	}
	file, err := cmp.Or(l.Client, noLinks).Get(ctx, f.URL, f.MediaType)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		reason := "The download failed."
		var fe *fetch.Error
		if errors.As(err, &fe) {
			reason = fe.Reason()
		}
		p := keep(keel.TextPart{Text: NotDownloadedNote(name, f.MediaType, reason)})
		run.Report(Recovery{Processor: LinkDownloadID, Action: OutcomeNotDownloaded,
			Files: []RecoveredFile{{Name: name, MediaType: keel.NormalizeMediaType(f.MediaType), Outcome: OutcomeNotDownloaded, Reason: reason}}})
		// A link refused by the rules alone cost nothing and may pass once
		// the configuration changes: only what was tried is remembered.
		if fe == nil || !fe.Refused() {
			run.updateStored(ctx, m.ID, func(sm *keel.Message) {
				old, _ := sm.Metadata[MetadataLinkFailures].(map[string]any)
				failures := make(map[string]any, len(old)+1)
				maps.Copy(failures, old)
				failures[f.URL] = reason
				*sm = sm.WithMetadata(MetadataLinkFailures, failures)
			})
		}
		return p, nil
	}
	p := keep(keel.FilePart{Data: file.Data, MediaType: cmp.Or(f.MediaType, file.MediaType), Filename: name})
	if l.KeepCopies {
		run.updateStored(ctx, m.ID, func(sm *keel.Message) {
			for k, q := range sm.Parts {
				if g, ok := q.(keel.FilePart); ok && g.URL == f.URL && g.Data == nil {
					sm.Parts[k] = p
				}
			}
		})
	}
	return p, nil
}

// NotDownloadedNote stands for a file given by link that was not
// downloaded, so that the model knows a file was sent and why it cannot
// see it:
//
//	[File not downloaded]
//	name: NAME
//	reason: REASON
//
// NAME is the file's display name (its file name, else its media type),
// cleaned of control characters; reason, a sentence, is cleaned too.
func NotDownloadedNote(filename, mediaType, reason string) string {
	return "[File not downloaded]\nname: " + displayName(filename, mediaType) + "\nreason: " + cleantext.Line(reason, 500)
}
