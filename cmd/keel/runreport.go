package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/config"
	"github.com/keel-go/keel/internal/cleantext"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// waitText says how long a retry waits: "in 3 s", "in 250 ms", "at once".
func waitText(d time.Duration) string {
	switch {
	case d <= 0:
		return "at once"
	case d < time.Second:
		return fmt.Sprintf("in %d ms", d.Milliseconds())
	default:
		return fmt.Sprintf("in %.3g s", d.Seconds())
	}
}

// failureText describes the failure a retry answers: the provider's
// status and message, such as "503 (The model is overloaded.)".
func failureText(err error) string {
	var api *keel.APICallError
	switch {
	case errors.As(err, &api) && api.StatusCode != 0 && api.Message != "":
		return fmt.Sprintf("%d (%s)", api.StatusCode, cleantext.Short(api.Message, 120))
	case errors.As(err, &api) && api.StatusCode != 0:
		return fmt.Sprintf("%d", api.StatusCode)
	case err != nil:
		return cleantext.Short(err.Error(), 160)
	}
	return "a failure"
}

// runFailure explains a failed run and what to do next.
func runFailure(err error, c *runCmd) error {
	var api *keel.APICallError
	var unsup *keel.UnsupportedFunctionalityError
	var upload *processor.FileUploadError
	switch {
	case errors.Is(err, config.ErrNoModel), errors.Is(err, config.ErrModelUnavailable):
		return err
	case errors.As(err, &upload):
		return fmt.Errorf("%w (send a smaller file, or another one)", err)
	case c.newThread != "" && errors.Is(err, memory.ErrNotFound):
		return fmt.Errorf("%w (the id %s is taken: choose another with --new-thread)", err, c.newThread)
	case errors.As(err, &api) && (api.StatusCode == 401 || api.StatusCode == 403 || api.Fault == keel.FaultNotFile && api.StatusCode == 400):
		// A bad key comes as a 400 from Gemini ("API key not valid").
		return fmt.Errorf("%w (check the provider's API key)", err)
	case errors.As(err, &api) && api.StatusCode == 429:
		return fmt.Errorf("%w (the provider's rate limit: try again later)", err)
	case errors.As(err, &api) && api.StatusCode == 0:
		return fmt.Errorf("%w (check the network, and the provider's base URL variable if you set one)", err)
	case errors.As(err, &api) && api.StatusCode == 404:
		return fmt.Errorf("%w (check the model's name, or choose another with --model)", err)
	case errors.As(err, &api) && api.Fault.BlamesFiles():
		// The same request is refused again: trying again cannot help.
		return fmt.Errorf("%w (this model does not take the file as sent: try another model with --model, or send the file's text)", err)
	case errors.As(err, &api) && api.Retryable:
		return fmt.Errorf("%w (try again later, or try another model with --model)", err)
	case errors.As(err, &api):
		return fmt.Errorf("%w (try another model with --model)", err)
	case errors.As(err, &unsup):
		return fmt.Errorf("%w (try another model with --model)", err)
	case errors.Is(err, context.Canceled):
		return errors.New("interrupted")
	}
	return err
}

// countStored finds out, after a failed run, whether the user's message
// was kept in the thread: it was when the thread holds more messages than
// before. The run's context may be cancelled by then.
func (c *runCmd) countStored(ctx context.Context, store memory.Store) {
	if c.stored < 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	before := c.stored
	c.stored = -1
	if n := messageCount(ctx, store, c.resource, c.thread); n > before {
		c.stored = n
	}
}

// errorJSON is what keel run --json prints when it fails.
type errorJSON struct {
	Error string `json:"error"`
	// Status is the provider's HTTP status, when it answered with one.
	Status int `json:"status,omitempty"`
	// ThreadID and ResourceID name the thread that keeps the user's
	// message; both are left out when nothing was stored.
	ThreadID   string `json:"threadId,omitempty"`
	ResourceID string `json:"resourceId,omitempty"`
}

// fail tells the user that the run failed, why, and, when the user's
// message was kept, in which thread, which --json prints as an errorJSON
// on standard output too.
func (c *runCmd) fail(ctx context.Context, err error, std stdio) error {
	if _, ok := interrupted(ctx); ok && errors.Is(err, context.Canceled) {
		err = errors.New("interrupted")
	}
	fmt.Fprintf(std.err, "keel run: %v\n", err)
	kept := c.stored >= 0 && c.thread != ""
	if kept {
		fmt.Fprintf(std.err, "keel run: your message is kept in thread %s: continue it with --thread %s (keel threads show %s shows it)\n",
			c.thread, c.thread, c.thread)
	}
	if c.asJSON {
		out := errorJSON{Error: err.Error()}
		if api, ok := errors.AsType[*keel.APICallError](err); ok {
			out.Status = api.StatusCode
		}
		if kept {
			out.ThreadID, out.ResourceID = c.thread, c.resource
		}
		if werr := writeJSON(std.out, out); werr != nil {
			return werr
		}
	}
	return &printedError{err: err}
}
