package processor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/keel-go/keel"
)

// This file is keel's use of a provider's own file store
// ([keel.FileStore]) in the unsupported-file handler, beyond the reference
// framework: a file too large to go inline is uploaded there once and
// named by reference, instead of being taken out of the prompt.

// OutcomeProviderFile: the file was uploaded to the provider's own file
// store (or had been, and the reference was still good), and the model got
// it by reference ([RecoveredFile].Ref) in its place: the model reads the
// file itself.
const OutcomeProviderFile = "provider-file"

// CauseInlineLimit: no call failed; the request's inline files would have
// been over what the model's provider takes in one request
// ([keel.FileStore].InlineLimit), so the largest went by reference.
// Provider and Model name the model; Message says the sizes.
const CauseInlineLimit = "inline-limit"

// providerFileState is what a run knows of the files it sends by
// reference. It lives in the run's [unsupportedFileState], under its
// lock.
type providerFileState struct {
	// bySize holds the digests of the files refused for their size in
	// this run: they go by reference when they can.
	bySize map[string]bool
	// refs holds the reference each file goes by in this run, by digest,
	// so that it is uploaded (or looked up) once per run.
	refs map[string]keel.ProviderFile
	// failed holds the digests of files that cannot go by reference (the
	// upload failed, or the provider refused the file by reference too):
	// they are handled as refused.
	failed map[string]bool
	// renewed holds the digests uploaded again because the provider no
	// longer knew their reference: at most once per run.
	renewed map[string]bool
	// reported holds the files (see fileKey) whose reference was
	// reported.
	reported map[string]bool
	// limitCause is the run's cause for files sent by reference for the
	// inline limit.
	limitCause *RecoveryCause
}

// plannedRef is a file the next call sends by reference.
type plannedRef struct {
	ref   keel.ProviderFile
	size  int64
	cause *RecoveryCause
}

// refCandidate is an inline file of the prompt.
type refCandidate struct {
	f    keel.FilePart
	sum  string
	size int64 // its bytes
}

// referencePlan uploads or looks up, before a call, the files of the
// prompt's user and tool messages that go by reference, and returns their
// references by digest; nil when there is none, or no store or provider
// file store. A file goes by reference when its type is not refused and
//
//   - it was refused for its size in this run; or
//   - it is remembered refused (by its digest) and went by reference under
//     this scope before (a file refused for its pages never does: the
//     provider counts the pages of a file however it gets it); or
//   - the prompt's inline files, as sent, would be over the model's
//     InlineLimit: the largest go, until the rest fits.
//
// A reference found for the file's scope and digest is used until it
// expires, then the file is uploaded again and the new reference saved.
// A file whose upload fails is handled as refused (and logged); an
// upload cut short by ctx is not a failure of the file: the plan stops
// with ctx's error, and neither the run nor the store of references keeps
// anything of it. st.mu must be held.
func (h *UnsupportedFileHandler) referencePlan(ctx context.Context, req *LLMRequest, st *unsupportedFileState, remembered map[string]*RecoveryCause) (map[string]plannedRef, error) {
	if h.providerFiles == nil || req.Model == nil {
		return nil, nil
	}
	store := keel.FileStoreOf(req.Model)
	if store == nil {
		return nil, nil
	}
	pf := &st.pf
	scope := store.FileScope()
	var want []refCandidate
	wanted := map[string]*RecoveryCause{}
	var inlineSent int64
	var rest []refCandidate
	for _, c := range inlineCandidates(req, st, remembered) {
		if _, dup := wanted[c.sum]; dup {
			continue
		}
		var cause *RecoveryCause
		switch {
		case pf.failed[c.sum]:
			continue // handled as refused
		case pf.bySize[c.sum]:
			cause = st.rejectedFiles[c.sum]
		case st.rejectedFiles[c.sum] != nil:
			continue // refused for its pages: handled as refused
		case remembered[fileRefusalKey(c.sum)] != nil:
			if _, ok := pf.refs[c.sum]; !ok && !pf.renewed[c.sum] {
				if _, found, err := h.providerFiles.ProviderFile(ctx, scope, c.sum); err != nil || !found {
					warnRefusedFile(req.Run, "provider file references not read; the file is handled as refused", c.f.Filename, err)
					continue
				}
			}
			cause = remembered[fileRefusalKey(c.sum)]
		default:
			rest = append(rest, c)
			inlineSent += base64Size(c.size)
			continue
		}
		wanted[c.sum] = cause
		want = append(want, c)
	}
	if limit := store.InlineLimit(); limit > 0 && inlineSent > limit {
		slices.SortStableFunc(rest, func(a, b refCandidate) int { return cmp.Compare(b.size, a.size) })
		for _, c := range rest {
			if inlineSent <= limit {
				break
			}
			if pf.limitCause == nil {
				pf.limitCause = inlineLimitCause(req.Model, inlineSent, limit)
			}
			wanted[c.sum] = pf.limitCause
			want = append(want, c)
			inlineSent -= base64Size(c.size)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	plan := make(map[string]plannedRef, len(want))
	for _, c := range want {
		ref, err := h.reference(ctx, req.Run, store, scope, pf, c)
		if cerr := ctx.Err(); err != nil && cerr != nil {
			return nil, cerr
		}
		if err != nil {
			// Handled as refused from now on: the sandbox's note and the
			// file's text.
			setIn(&pf.failed, c.sum, true)
			setIn(&st.rejectedFiles, c.sum, wanted[c.sum])
			warnRefusedFile(req.Run, "file not sent to the provider's file store; handled as refused", c.f.Filename, err)
			continue
		}
		plan[c.sum] = plannedRef{ref: ref, size: c.size, cause: wanted[c.sum]}
	}
	return plan, nil
}

// inlineCandidates returns the inline files of the prompt's user and tool
// messages whose type is not refused, each with its digest and size.
func inlineCandidates(req *LLMRequest, st *unsupportedFileState, remembered map[string]*RecoveryCause) []refCandidate {
	var out []refCandidate
	for f := range filesOf(req.Prompt, carriesUserFiles) {
		if !f.IsInline() {
			continue
		}
		if _, refused := st.selects(f, "", remembered); refused {
			continue // refused for its type: a reference would be too
		}
		sum, data, err := req.Run.fileDigest(f)
		if err != nil {
			continue
		}
		out = append(out, refCandidate{f: f, sum: sum, size: inlineSize(f, data)})
	}
	return out
}

// inlineSize is the size of f's bytes: data's when fileDigest had them,
// else reckoned from a data: URL without decoding it.
func inlineSize(f keel.FilePart, data []byte) int64 {
	if data != nil {
		return int64(len(data))
	}
	return encodedSize(f)
}

// reference returns the reference c goes by: this run's, else the
// store's when it has not expired, else a new upload, saved. A store
// that cannot be read or written is logged: the upload then serves this
// run only.
func (h *UnsupportedFileHandler) reference(ctx context.Context, run *Run, store keel.FileStore, scope string, pf *providerFileState, c refCandidate) (keel.ProviderFile, error) {
	if ref, ok := pf.refs[c.sum]; ok {
		return ref, nil
	}
	ref, found, err := h.providerFiles.ProviderFile(ctx, scope, c.sum)
	warnRefusedFile(run, "provider file references not read; the file is uploaded again", c.f.Filename, err)
	if err != nil || !found || ref.Expired(time.Now()) {
		if ref, err = store.UploadFile(ctx, c.f); err != nil {
			return keel.ProviderFile{}, err
		}
		err := h.providerFiles.SaveProviderFile(ctx, scope, c.sum, ref)
		warnRefusedFile(run, "provider file reference not saved; later runs upload the file again", c.f.Filename, err)
	}
	setIn(&pf.refs, c.sum, ref)
	return ref, nil
}

// inlineLimitCause describes sending files by reference for the model's
// inline limit.
func inlineLimitCause(m keel.Model, sent, limit int64) *RecoveryCause {
	provider, model := ledgerModel(m)
	return &RecoveryCause{Kind: CauseInlineLimit, Provider: provider, Model: model,
		Message: fmt.Sprintf("the request's inline files would be %d bytes as sent, over the %d the provider takes in one request", sent, limit)}
}

// referencePart returns what names f by its planned reference, and
// whether this is the run's first time for it.
func (st *unsupportedFileState) referencePart(run *Run, f keel.FilePart, sum string, p plannedRef) (replacement, bool) {
	filename := fileName(run, f, sum)
	part := p.ref.Part(filename)
	part.MediaType = cmp.Or(part.MediaType, f.MediaType)
	rep := replacement{part: &part, cause: p.cause, file: RecoveredFile{Name: displayName(filename, f.MediaType),
		MediaType: keel.NormalizeMediaType(f.MediaType), Size: p.size, SHA256: sum, Outcome: OutcomeProviderFile, Ref: p.ref.Ref}}
	key := fileKey(f, sum, filename) + "\x00" + p.ref.Ref
	if st.pf.reported[key] {
		return rep, false
	}
	setIn(&st.pf.reported, key, true)
	return rep, true
}

// noteSizeRefusal marks the files a refusal for size was blamed on: they
// go by reference when they can.
func (st *unsupportedFileState) noteSizeRefusal(c refusalClass, b blamed) {
	if c.http == nil || faultOf(c.http) != keel.FaultFileSize || len(b.files) == 0 {
		return
	}
	for _, d := range b.files {
		setIn(&st.pf.bySize, d, true)
	}
}

// referenceRefused answers a failed call that carried files by reference
// when the answer is about them: a reference the provider no longer knows
// ([keel.FaultFileGone]) is dropped and its file uploaded again, once per
// run; a second time, or a refusal of the file's size or pages that no
// file sent inline explains, the file is handled as refused (and a file
// refused for its pages is remembered so, by digest, and its reference
// forgotten). It reports false when the answer is not about them.
func (h *UnsupportedFileHandler) referenceRefused(ctx context.Context, e *APIErrorEvent) (Decision, bool) {
	var api *keel.APICallError
	if h.providerFiles == nil || e.Model == nil || !errors.As(e.Err, &api) {
		return Decision{}, false
	}
	fault := api.Fault
	if fault != keel.FaultFileGone && fault != keel.FaultFileSize && fault != keel.FaultFilePages {
		return Decision{}, false
	}
	store := keel.FileStoreOf(e.Model)
	if store == nil {
		return Decision{}, false
	}
	st := StateOf[unsupportedFileState](e.Run, h)
	st.mu.Lock()
	defer st.mu.Unlock()
	carried := st.carriedRefs(e.Prompt)
	if len(carried) == 0 {
		return Decision{}, false
	}
	if fault != keel.FaultFileGone && overLimit(e.Run, e.Prompt, api) != nil {
		return Decision{}, false // an inline file is to blame: the handler's rule
	}
	cause := apiErrorCause(api)
	pf := &st.pf
	scope := store.FileScope()
	for _, sum := range carried {
		if _, err := h.providerFiles.ForgetProviderFile(ctx, scope, sum); err != nil {
			warnLedger(e.Run, "provider file reference not forgotten", err)
		}
		delete(pf.refs, sum)
		if fault == keel.FaultFileGone && !pf.renewed[sum] {
			setIn(&pf.renewed, sum, true)
			continue
		}
		setIn(&pf.failed, sum, true)
		setIn(&st.rejectedFiles, sum, cause)
		if st.cause == nil {
			st.cause = cause
		}
		if fault == keel.FaultFilePages && h.refusals != nil {
			provider, model := ledgerModel(e.Model)
			status, reason := evidence(cause)
			if err := h.refusals.record(ctx, provider, model, fileRefusalKey(sum), status, reason); err != nil {
				warnLedger(e.Run, "refusal not remembered", err)
			}
		}
	}
	return Decision{Retry: true}, true
}

// carriedRefs returns the digests of the files of this run that msgs
// name by reference.
func (st *unsupportedFileState) carriedRefs(msgs []keel.Message) []string {
	var out []string
	for sum, ref := range st.pf.refs {
		if holdsFile(msgs, true, func(f keel.FilePart) bool { return !f.IsInline() && f.URL == ref.Ref }) {
			out = append(out, sum)
		}
	}
	slices.Sort(out)
	return out
}
