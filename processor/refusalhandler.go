package processor

import (
	"context"
	"slices"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// This file is the unsupported-file handler's use of remembered refusals:
// what it looks up before a call, what it learns from a refusal, and what
// it forgets when a call succeeds.

// sdkEvidence starts the reason kept for a refusal by the SDK.
const sdkEvidence = "refused by the SDK before sending: "

// namedRefusal is a media type a refusal named, and the refusal.
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

// learn remembers what a refusal says about the model: each type named at
// once (the refusal is explicit); with an unnamed refusal, each type that
// is not an image, a PDF or text in the refused request's user messages,
// once a call without them succeeds (see ObserveResponse): until then, the
// refusal may have been about something else. A call that got no answer
// at all teaches nothing.
func (h *UnsupportedFileHandler) learn(ctx context.Context, e *APIErrorEvent, st *unsupportedFileState, named []namedRefusal, unnamed *RecoveryCause) {
	if h.refusals == nil || e.Model == nil {
		return
	}
	provider, model := e.Model.Provider(), e.Model.Name()
	var done []string
	for _, n := range named {
		if n.mediaType == "" || slices.Contains(done, n.mediaType) {
			continue
		}
		done = append(done, n.mediaType)
		status, reason := evidence(n.cause)
		if err := h.refusals.record(ctx, provider, model, n.mediaType, status, reason); err != nil {
			warnLedger(e.Run, "refusal not remembered", err)
		}
	}
	if unnamed == nil || unnamed.Status == 0 {
		// No answer came (a connection that failed): the seed's rule
		// retries without the files, but nothing says the model refused
		// them.
		return
	}
	refused := e.Prompt
	if refused == nil {
		refused = e.Run.Messages
	}
	status, reason := evidence(unnamed)
	st.mu.Lock()
	for _, t := range fileTypes(refused, unreadable) {
		st.pending = append(st.pending, pendingRefusal{mediaType: t, status: status, reason: reason})
	}
	st.mu.Unlock()
}

// remembered returns the cause of each type of the prompt's user files
// that the model is remembered to refuse now; nil when there is none.
// st.mu must be held.
func (h *UnsupportedFileHandler) remembered(ctx context.Context, req *LLMRequest, st *unsupportedFileState) map[string]*RecoveryCause {
	if h.refusals == nil || req.Model == nil || !holdsFile(req.Prompt, true, anyFile) {
		return nil
	}
	provider, model := req.Model.Provider(), req.Model.Name()
	entries, now, err := h.refusals.entries(ctx, provider, model)
	if err != nil {
		warnLedger(req.Run, "remembered refusals not read; what was known is used", err)
	}
	if len(entries) == 0 {
		return nil
	}
	var out map[string]*RecoveryCause
	for _, m := range req.Prompt {
		if m.Role != keel.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			f, ok := p.(keel.FilePart)
			if !ok {
				continue
			}
			t := keel.NormalizeMediaType(f.MediaType)
			ref, ok := entries[t]
			if !ok || ref.Expired(now) {
				continue
			}
			if out == nil {
				out = make(map[string]*RecoveryCause)
			}
			out[t] = st.rememberedCause(ref)
		}
	}
	return out
}

// rememberedCause returns the run's cause for ref, the same value for
// every file of its type, so that they are reported together.
func (st *unsupportedFileState) rememberedCause(ref memory.Refusal) *RecoveryCause {
	if c := st.remembered[ref.MediaType]; c != nil {
		return c
	}
	c := &RecoveryCause{Kind: CauseRememberedRefusal, Provider: ref.Provider, Model: ref.Model, Status: ref.Status,
		Message: ref.Reason, MediaType: ref.MediaType, LearnedAt: ref.LearnedAt, ExpiresAt: ref.ExpiresAt}
	if st.remembered == nil {
		st.remembered = make(map[string]*RecoveryCause)
	}
	st.remembered[ref.MediaType] = c
	return c
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
	provider, model := r.Model.Provider(), r.Model.Name()
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
// of msgs' user messages that ok accepts. Files without a media type are
// left out: no entry can name them.
func fileTypes(msgs []keel.Message, ok func(keel.FilePart) bool) []string {
	var out []string
	for _, m := range msgs {
		if m.Role != keel.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			f, isFile := p.(keel.FilePart)
			if !isFile || !ok(f) {
				continue
			}
			if t := keel.NormalizeMediaType(f.MediaType); t != "" && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

func warnLedger(run *Run, msg string, err error) {
	if run.Logger != nil {
		run.Logger.Warn(msg, "processor", UnsupportedFileHandlerID, "run", run.ID, "err", err)
	}
}
