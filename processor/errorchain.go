package processor

// fileErrorDepth is how many levels of an error's cause chain the
// unsupported-file handler looks at: the error itself is level 1. A
// provider's refusal is found within a few wrappers; deeper matches are
// more likely to be unrelated errors carried along as context.
const fileErrorDepth = 5

// retryErrorDepth bounds the walk of the stream-error retry processor,
// which matches "at any level". The bound only guards against cause
// cycles that a hand-written Unwrap could build.
const retryErrorDepth = 64

// walkCauses calls visit on err and on its causes, depth first, following
// both Unwrap() error and Unwrap() []error (errors.Join, fmt.Errorf with
// several %w), down to maxDepth levels (err itself is level 1). It stops
// and returns true as soon as visit returns true.
func walkCauses(err error, maxDepth int, visit func(error) bool) bool {
	if err == nil || maxDepth <= 0 {
		return false
	}
	if visit(err) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return walkCauses(u.Unwrap(), maxDepth-1, visit)
	case interface{ Unwrap() []error }:
		for _, cause := range u.Unwrap() {
			if walkCauses(cause, maxDepth-1, visit) {
				return true
			}
		}
	}
	return false
}

// findCause returns the first error of type T within maxDepth levels of
// err's cause chain.
func findCause[T error](err error, maxDepth int) (T, bool) {
	var found T
	ok := walkCauses(err, maxDepth, func(e error) bool {
		if t, is := e.(T); is {
			found = t
			return true
		}
		return false
	})
	return found, ok
}
