package processor

// DefaultErrorProcessors returns new instances of the error processors
// every agent gets unless it turns defaults off, in this order:
// [PrefillErrorHandler], [UnsupportedFileHandler] and the
// [DefaultStreamErrorRetry] instance. The order matters: a file the
// provider refused with a 502 is taken out by the unsupported-file
// handler before the retry processor would send it again.
func DefaultErrorProcessors() []Processor {
	return []Processor{
		NewPrefillErrorHandler(),
		NewUnsupportedFileHandler(),
		DefaultStreamErrorRetry(),
	}
}

// MergeErrorProcessors returns the error processors of an agent built from
// defaults and the user's own processors, in this order:
//
//  1. each default, in its order, replaced by the first user processor
//     with the same ID (the user's processor takes the default's slot);
//  2. then every other user processor, in the user's order.
//
// Nil processors are dropped. Neither slice is changed. Processors share
// per-run state by ID (see [StateOf]), so the result should not hold two
// processors with one ID; a user processor repeating an ID already placed
// comes after the defaults like any other.
func MergeErrorProcessors(defaults, user []Processor) []Processor {
	out := make([]Processor, 0, len(defaults)+len(user))
	used := make([]bool, len(user))
	for _, d := range defaults {
		if d == nil {
			continue
		}
		slot := d
		for i, u := range user {
			if u != nil && !used[i] && u.ID() == d.ID() {
				slot, used[i] = u, true
				break
			}
		}
		out = append(out, slot)
	}
	for i, u := range user {
		if u != nil && !used[i] {
			out = append(out, u)
		}
	}
	return out
}
