package processor

import (
	"context"
	"slices"
	"strings"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// This file is the unsupported-file handler's use of remembered refusals:
// what it looks up before a call, what it learns from a refusal, and what
// it forgets when a call succeeds.

// sdkEvidence starts the reason kept for a refusal by the SDK.
const sdkEvidence = "refused by the SDK before sending: "

// namedRefusal is a media type or class a refusal named, and the refusal.
type namedRefusal struct {
	mediaType string
	cause     *RecoveryCause
}

// pendingRefusal is a type an unnamed refusal is to remember once a call
// without it succeeds, and the refusal's evidence.
type pendingRefusal struct {
	mediaType string
	status    int
	reason    string
}

// evidence is the status and reason a ledger keeps for a refusal.
func evidence(c *RecoveryCause) (int, string) {
	if c.Kind == CauseUnsupportedFunctionality {
		return 0, sdkEvidence + c.Message
	}
	return c.Status, c.Message
}

// fileRefusalPrefix starts the ledger's media type of a refusal of one
// file, by its digest: a file over a size or page limit is refused for
// what it is, not for its type.
const fileRefusalPrefix = "sha256:"

// fileRefusalKey is the ledger's media type of the refusal of the file
// whose digest is sum.
func fileRefusalKey(sum string) string { return fileRefusalPrefix + sum }

// ledgerModel names a model in the ledger: its provider, and its name
// qualified by the API it is called through when that is not the
// provider's default one ("responses/gpt-5" for OpenAI's Responses API,
// as in the model string "openai/responses/gpt-5"), since what a model
// reads depends on the endpoint as much as on the model.
func ledgerModel(m keel.Model) (provider, model string) {
	model = m.Name()
	if a, ok := m.(interface{ API() string }); ok {
		if api := a.API(); api != "" && api != "chat" {
			model = api + "/" + model
		}
	}
	return m.Provider(), model
}

// learn remembers what a refusal says about the model: each type named
// at once, and each type of a named class that the refused request held
// (the refusal is explicit); each file refused for its size or pages, by
// its digest; with an unnamed refusal, the types it took out, once a call
// without them succeeds (see ObserveResponse): until then, the refusal
// may have been about something else. A call that got no answer at all
// teaches nothing. st.mu must be held.
func (h *UnsupportedFileHandler) learn(ctx context.Context, e *APIErrorEvent, st *unsupportedFileState, b blamed) {
	if h.refusals == nil || e.Model == nil {
		return
	}
	provider, model := ledgerModel(e.Model)
	sent := e.Prompt
	if sent == nil {
		sent = e.Run.Messages
	}
	var done []string
	remember := func(mediaType string, cause *RecoveryCause) {
		if mediaType == "" || slices.Contains(done, mediaType) {
			return
		}
		done = append(done, mediaType)
		status, reason := evidence(cause)
		if err := h.refusals.record(ctx, provider, model, mediaType, status, reason); err != nil {
			warnLedger(e.Run, "refusal not remembered", err)
		}
	}
	for _, n := range b.named {
		if !strings.HasSuffix(n.mediaType, "/*") {
			remember(n.mediaType, n.cause)
			continue
		}
		for _, t := range fileTypes(sent, func(f keel.FilePart) bool { return keel.MatchMediaClass(n.mediaType, f.MediaType) }) {
			remember(t, n.cause)
		}
	}
	for _, sum := range b.files {
		remember(fileRefusalKey(sum), b.cause)
	}
	if b.unnamed == "" || b.cause.Status == 0 {
		// No answer came (a connection that failed): the handler's base rule
		// retries without the files, but nothing says the model refused
		// them.
		return
	}
	status, reason := evidence(b.cause)
	for _, t := range b.pending {
		st.pending = append(st.pending, pendingRefusal{mediaType: t, status: status, reason: reason})
	}
}

// remembered returns the cause of each type of the prompt's user files
// that the model is remembered to refuse now, and of each file refused
// for its size or pages (by fileRefusalKey); nil when there is none.
// byFile reports that some entry is of a file. st.mu must be held.
func (h *UnsupportedFileHandler) remembered(ctx context.Context, req *LLMRequest, st *unsupportedFileState) (out map[string]*RecoveryCause, byFile bool) {
	if h.refusals == nil || req.Model == nil || !holdsFile(req.Prompt, true, anyFile) {
		return nil, false
	}
	provider, model := ledgerModel(req.Model)
	entries, now, err := h.refusals.entries(ctx, provider, model)
	if err != nil {
		warnLedger(req.Run, "remembered refusals not read; what was known is used", err)
	}
	if len(entries) == 0 {
		return nil, false
	}
	add := func(key string) {
		ref, ok := entries[key]
		if !ok || ref.Expired(now) {
			return
		}
		setIn(&out, key, st.rememberedCause(ref))
	}
	for key := range entries {
		if strings.HasPrefix(key, fileRefusalPrefix) {
			byFile = true
			add(key)
		}
	}
	for f := range filesOf(req.Prompt, carriesUserFiles) {
		add(keel.NormalizeMediaType(f.MediaType))
	}
	return out, byFile
}

// rememberedCause returns the run's cause for ref, the same value for
// every file of its type, so that they are reported together.
func (st *unsupportedFileState) rememberedCause(ref memory.Refusal) *RecoveryCause {
	if c := st.remembered[ref.MediaType]; c != nil {
		return c
	}
	c := &RecoveryCause{Kind: CauseRememberedRefusal, Provider: ref.Provider, Model: ref.Model, Status: ref.Status,
		Message: ref.Reason, MediaType: ref.MediaType, LearnedAt: ref.LearnedAt, ExpiresAt: ref.ExpiresAt}
	if strings.HasPrefix(ref.MediaType, fileRefusalPrefix) {
		// A refusal of one file, not of a type.
		c.MediaType = ""
	}
	setIn(&st.remembered, ref.MediaType, c)
	return c
}

// rememberedFor returns the remembered refusal, among remembered (see
// remembered), of files of type t or of the file whose digest is sum ("" when
// not inline); nil when there is none.
func rememberedFor(remembered map[string]*RecoveryCause, t, sum string) *RecoveryCause {
	if c := remembered[t]; c != nil {
		return c
	}
	if sum == "" {
		return nil
	}
	return remembered[fileRefusalKey(sum)]
}

// ObserveResponse learns from a call that succeeded: the model takes the
// types of the files its user messages carried, so their refusals are
// forgotten; and the types an unnamed refusal of the run took out are
// remembered, unless the call carried them after all.
func (h *UnsupportedFileHandler) ObserveResponse(ctx context.Context, r *LLMResponse) {
	if h.refusals == nil || r == nil || r.Run == nil || r.Model == nil {
		return
	}
	st := StateOf[unsupportedFileState](r.Run, h)
	st.mu.Lock()
	pending := st.pending
	st.pending = nil
	st.mu.Unlock()
	carried := fileTypes(r.Prompt, anyFile)
	if len(carried) == 0 && len(pending) == 0 {
		return
	}
	provider, model := ledgerModel(r.Model)
	if len(carried) > 0 {
		entries, _, err := h.refusals.entries(ctx, provider, model)
		if err != nil {
			warnLedger(r.Run, "remembered refusals not read; what was known is used", err)
		}
		for _, t := range carried {
			if _, ok := entries[t]; !ok {
				continue
			}
			if _, err := h.refusals.Forget(ctx, memory.RefusalKey{Provider: provider, Model: model, MediaType: t}); err != nil {
				warnLedger(r.Run, "refusal the model no longer makes not forgotten", err)
			}
		}
	}
	for _, p := range pending {
		if slices.Contains(carried, p.mediaType) {
			continue
		}
		if err := h.refusals.record(ctx, provider, model, p.mediaType, p.status, p.reason); err != nil {
			warnLedger(r.Run, "refusal not remembered", err)
		}
	}
}

// fileTypes returns the normalised media types, each once, of the files
// of msgs' user and tool messages that ok accepts. Files without a media
// type are left out: no entry can name them.
func fileTypes(msgs []keel.Message, ok func(keel.FilePart) bool) []string {
	var out []string
	for f := range filesOf(msgs, carriesUserFiles) {
		if !ok(f) {
			continue
		}
		if t := keel.NormalizeMediaType(f.MediaType); t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func warnLedger(run *Run, msg string, err error) {
	if run.Logger != nil {
		run.Logger.Warn(msg, "processor", UnsupportedFileHandlerID, "run", run.ID, "err", err)
	}
}
