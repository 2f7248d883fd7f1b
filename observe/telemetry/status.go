package telemetry

import (
	"context"
	"errors"
	"strconv"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
)

// errorClass is a failure's label value and a span's error.type: a small,
// fixed set, so that a metric's series stay few whatever fails.
func errorClass(err error) string {
	var api *keel.APICallError
	var unsupported *keel.UnsupportedFunctionalityError
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, keel.ErrIdleTimeout):
		return "timeout"
	case errors.As(err, &api):
		if api.StatusCode > 0 {
			return strconv.Itoa(api.StatusCode)
		}
		return "no-answer"
	case errors.As(err, &unsupported):
		return "unsupported"
	case errors.Is(err, memory.ErrNotFound):
		return "not-found"
	case errors.Is(err, memory.ErrConflict):
		return "conflict"
	}
	return "error"
}
