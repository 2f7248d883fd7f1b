package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/processor"
)

// ModelEntry is one model of an agent's list ([Config].Models).
type ModelEntry struct {
	// Model answers the calls that reach this entry. Required.
	Model keel.Model
	// MaxRetries caps the processor-triggered retries made on this model
	// in a run (the unsupported-file handler's, the stream retry's)
	// before the run moves to the next model; 0 means the agent's
	// MaxProcessorRetries, a negative value means none.
	MaxRetries int
}

// MetadataModel is the key, in the metadata of an assistant message the
// agent stored, of the model that wrote it: "provider/name", such as
// "google/gemini-2.5-flash".
const MetadataModel = "model"

// ModelName returns m as a model string, "provider/name".
func ModelName(m keel.Model) string { return m.Provider() + "/" + m.Name() }

// modelSlot is one model of the agent with the pipeline whose retry cap
// is the entry's.
type modelSlot struct {
	model    keel.Model
	name     string
	pipeline *processor.Pipeline
}

// buildModels checks cfg's model or list of models and makes their
// slots; cfg.Model is set to the first.
func (a *Agent) buildModels(cfg *Config) error {
	entries := cfg.Models
	switch {
	case len(entries) > 0 && cfg.Model != nil:
		return fmt.Errorf("%w: agent %s gives both Model and Models; put the model first in Models", ErrInvalidConfig, cfg.ID)
	case len(entries) == 0 && cfg.Model == nil:
		return fmt.Errorf("%w: agent %s has no Model", ErrInvalidConfig, cfg.ID)
	case len(entries) == 0:
		entries = []ModelEntry{{Model: cfg.Model}}
	}
	for i, e := range entries {
		if e.Model == nil {
			return fmt.Errorf("%w: agent %s: Models[%d] has no Model", ErrInvalidConfig, cfg.ID, i)
		}
		retries := cmp.Or(e.MaxRetries, cfg.MaxProcessorRetries)
		a.models = append(a.models, modelSlot{model: e.Model, name: ModelName(e.Model),
			pipeline: processor.NewPipeline(a.processors, retries)})
	}
	cfg.Model = entries[0].Model
	a.pipeline = a.models[0].pipeline
	return nil
}

// slot is the model the run's calls go to now.
func (r *runner) slot() *modelSlot { return &r.a.models[r.cur] }

// fallBack moves the run to the next model after err, which the error
// processors of the current one gave up on, if there is a next model and
// err is not one to surface. The next model starts afresh: processor
// state, retries and added messages of the failed model are dropped (see
// [processor.Run.NextModel]). It reports whether the run moved on; the
// error is errStopped when the stream's consumer left.
func (r *runner) fallBack(ctx context.Context, step int, err error, sent bool) (bool, error) {
	if r.cur+1 >= len(r.a.models) || !movesOn(ctx, err, r.a.cfg.FallbackOnCallerErrors) {
		return false, nil
	}
	from := r.slot().name
	r.cur++
	r.run.NextModel()
	r.a.logger.Warn("model failed; the next model answers", "agent", r.a.cfg.ID, "run", r.opts.runID,
		"from", from, "to", r.slot().name, "err", err)
	if !r.send(Event{Type: EventFallback, Step: step, Err: err, Model: r.slot().name, Discard: sent}) {
		return false, errStopped
	}
	return true, nil
}

// movesOn reports whether a model call's error, which the error
// processors gave up on, sends the run to the next model: any failure of
// the model or its provider (5xx, 429, a connection that failed, a model
// that cannot be used, a file refused), but not the context's end, and
// not a fault of the caller's unless callerFaults is set.
func movesOn(ctx context.Context, err error, callerFaults bool) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return callerFaults || !CallerFault(err)
}

// CallerFault reports whether err, a model call's error, is the caller's
// to fix rather than the model's: the provider answered 401 or 403 (a
// bad key, no access), or rejected the request with another 4xx (but 408,
// 409 and 429, which pass) that does not name a file's media type (a
// malformed request, an unknown model). Another model would most likely
// fail the same way, or hide a mistake that should be fixed, so an agent
// moves on from such an error only with [Config].FallbackOnCallerErrors.
func CallerFault(err error) bool {
	var api *keel.APICallError
	if !errors.As(err, &api) {
		return false
	}
	switch s := api.StatusCode; {
	case s == 401 || s == 403:
		return true
	case s == 408 || s == 409 || s == 429:
		return false
	case s >= 400 && s < 500:
		return api.MediaType == ""
	}
	return false
}
