package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
)

// MetadataRecoveries is the message metadata key under which a run stores
// its recoveries with the turn, so that a thread tells later what keel did
// with each file and why, as the run's events told it live. The value is
// the run's [processor.Recovery] list, in the order they were reported
// (as JSON once a store kept it: read it with [StoredRecoveries]).
//
// It is set on the first message of the reply (the assistant's), or, when
// the run failed once its input was stored, on the turn's last input
// message, which is stored again with it. Clients that do not know the
// key pass it over: Mastra's client hands message metadata to the
// application unchanged.
const MetadataRecoveries = "keelRecoveries"

// keepRecoveriesTimeout bounds storing a failed run's recoveries, which
// outlives the run's own context (its caller may be gone).
const keepRecoveriesTimeout = 10 * time.Second

// StoredRecoveries returns the recoveries stored with m under
// [MetadataRecoveries]: nil when there are none, an error when the value
// is not a list of recoveries.
func StoredRecoveries(m keel.Message) ([]processor.Recovery, error) {
	v, ok := m.Metadata[MetadataRecoveries]
	if !ok || v == nil {
		return nil, nil
	}
	if recs, ok := v.([]processor.Recovery); ok {
		return recs, nil
	}
	// A store gives back JSON values: decode them through JSON.
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("agent: stored recoveries of message %s: %w", m.ID, err)
	}
	var recs []processor.Recovery
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("agent: stored recoveries of message %s: %w", m.ID, err)
	}
	return recs, nil
}

// reply returns the run's reply messages to store, the recoveries on the
// first of them.
func (r *runner) reply() []keel.Message {
	steps := r.steps
	if recs := r.run.Recoveries(); len(recs) > 0 && len(steps) > 0 {
		steps = concat(nil, steps)
		steps[0] = steps[0].WithMetadata(MetadataRecoveries, recs)
	}
	return steps
}

// keepRecoveries stores a failed run's recoveries on the turn's last
// input message, so that they do not vanish with the run. A failure to
// store them is logged: the run's own error is what the caller gets.
func (r *runner) keepRecoveries(ctx context.Context) {
	recs := r.run.Recoveries()
	if len(recs) == 0 || r.opts.threadID == "" || len(r.input) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), keepRecoveriesTimeout)
	defer cancel()
	last := r.input[len(r.input)-1].WithMetadata(MetadataRecoveries, recs)
	if _, err := r.a.save(ctx, r.opts, []keel.Message{last}); err != nil {
		r.a.logger.Warn("agent: keep the recoveries of a failed run", "run", r.opts.runID, "thread", r.opts.threadID, "err", err)
	}
}
