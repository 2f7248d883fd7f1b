package server

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// RefusalJSON is a remembered refusal as GET /api/keel/refusals and keel
// refusals list --json show it.
type RefusalJSON struct {
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	MediaType string `json:"mediaType"`
	// LearnedAt is when the refusal was seen, ExpiresAt when it stops
	// counting; Expired tells whether it has, at the time of the answer.
	LearnedAt time.Time `json:"learnedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
	Expired   bool      `json:"expired"`
	// Status is the HTTP status of the refused call, 0 for a refusal by
	// the provider's SDK before sending; Reason is the evidence.
	Status int    `json:"status"`
	Reason string `json:"reason"`
}

// NewRefusalJSON returns r as shown at now.
func NewRefusalJSON(r memory.Refusal, now time.Time) RefusalJSON {
	return RefusalJSON{Provider: r.Provider, Model: r.Model, MediaType: r.MediaType,
		LearnedAt: r.LearnedAt, ExpiresAt: r.ExpiresAt, Expired: r.Expired(now), Status: r.Status, Reason: r.Reason}
}

// agentRefusals are the remembered refusals of the agents ([agent.Agent.Refusals]),
// each once: agents on one store share one value.
func agentRefusals(agents []*agent.Agent) []*processor.RememberedRefusals {
	var out []*processor.RememberedRefusals
	for _, a := range agents {
		if rr := a.Config().Files.Refusals; rr != nil && !slices.Contains(out, rr) {
			out = append(out, rr)
		}
	}
	return out
}

// refusalsOf answers 501 when no agent remembers refusals.
func (s *Server) refusalsOf(w http.ResponseWriter) ([]*processor.RememberedRefusals, bool) {
	if len(s.refusals) == 0 {
		writeError(w, http.StatusNotImplemented, "this server remembers no refusals: its store keeps none, or refusals.remember is false")
		return nil, false
	}
	return s.refusals, true
}

// listRefusals answers GET /api/keel/refusals: {"refusals": [...]}, every
// entry, expired ones included, by provider, model and media type; an
// entry two agents' ledgers both hold is listed once.
func (s *Server) listRefusals(w http.ResponseWriter, r *http.Request) {
	rrs, ok := s.refusalsOf(w)
	if !ok {
		return
	}
	var list []memory.Refusal
	for _, rr := range rrs {
		more, err := rr.List(r.Context())
		if err != nil {
			s.logger.Error("server: list refusals", "err", err)
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		list = append(list, more...)
	}
	slices.SortStableFunc(list, func(a, b memory.Refusal) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model), cmp.Compare(a.MediaType, b.MediaType))
	})
	list = slices.CompactFunc(list, func(a, b memory.Refusal) bool { return a.Key() == b.Key() })
	now := time.Now()
	out := make([]RefusalJSON, len(list))
	for i, ref := range list {
		out[i] = NewRefusalJSON(ref, now)
	}
	writeJSON(w, http.StatusOK, map[string]any{"refusals": out})
}

// forgetRefusals answers DELETE /api/keel/refusals?provider=P&model=M&
// mediaType=T: {"forgotten": n}. Leaving mediaType out forgets every type
// of the model, model too every model of the provider; forgetting
// everything takes all=true instead, so that no slip of a client empties
// the ledger.
//
// The ledger is every user's: a user's token may read it but not change
// it (403); a trusted caller (no auth, or the shared token) may.
func (s *Server) forgetRefusals(w http.ResponseWriter, r *http.Request) {
	if !callerOf(r).trusted() {
		writeError(w, http.StatusForbidden, "the remembered refusals serve every user, so a user's token cannot forget them: send the shared token (KEEL_API_TOKEN) instead")
		return
	}
	rrs, ok := s.refusalsOf(w)
	if !ok {
		return
	}
	q := r.URL.Query()
	key := memory.RefusalKey{Provider: q.Get("provider"), Model: q.Get("model"), MediaType: q.Get("mediaType")}
	switch {
	case key == (memory.RefusalKey{}) && q.Get("all") != "true":
		writeRequestError(w, badRequest("name what to forget: provider (and model, mediaType), or all=true for every entry"))
		return
	case key.Provider == "" && key.Model != "", key.Model == "" && key.MediaType != "":
		writeRequestError(w, badRequest("model needs provider, and mediaType needs model"))
		return
	}
	// Each agent's value forgets, so that each cache drops the entries;
	// on a ledger they share, the first removes them and the others
	// find none, so the sum counts each entry once.
	n := 0
	var err error
	for _, rr := range rrs {
		var k int
		if k, err = rr.Forget(r.Context(), key); err != nil {
			break
		}
		n += k
	}
	switch {
	case err == nil:
	case r.Context().Err() != nil:
		return // the caller went away
	case errors.Is(err, memory.ErrInvalid):
		writeRequestError(w, badRequest(err.Error()))
		return
	default:
		s.logger.Error("server: forget refusals", "err", err)
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"forgotten": n})
}
