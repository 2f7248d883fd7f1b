package agent

// RunOption configures one run.
type RunOption func(*runOptions)

type runOptions struct {
	threadID     string
	resourceID   string
	maxSteps     int
	runID        string
	lastMessages int
}

// WithThread runs in the thread: its stored messages are the history, and
// the turn's messages and the reply are stored in it. The thread is created
// on first use, owned by the run's resource, which must be given too
// ([WithResource]).
func WithThread(threadID string) RunOption {
	return func(o *runOptions) { o.threadID = threadID }
}

// WithResource names the owner of the run's thread (a user, an account).
// It also scopes the run's sandbox when the workspace resolves one per
// resource.
func WithResource(resourceID string) RunOption {
	return func(o *runOptions) { o.resourceID = resourceID }
}

// WithMaxSteps overrides the agent's MaxSteps for one run.
func WithMaxSteps(n int) RunOption {
	return func(o *runOptions) { o.maxSteps = n }
}

// WithRunID sets the run's ID instead of a generated one.
func WithRunID(id string) RunOption {
	return func(o *runOptions) { o.runID = id }
}

// WithLastMessages sets the run's history window: the thread's last n
// stored messages are sent to the model, or all of them for
// [AllMessages]; 0 keeps the agent's Config.LastMessages.
func WithLastMessages(n int) RunOption {
	return func(o *runOptions) { o.lastMessages = n }
}
