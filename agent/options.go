package agent

// RunOption configures one run.
type RunOption func(*runOptions)

type runOptions struct {
	threadID     string
	resourceID   string
	maxSteps     int
	runID        string
	lastMessages int
	newThread    bool
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

// WithNewThread says that the run's thread was just found missing, as a
// server finds out when it checks a thread's owner before taking its turn:
// the run then stores its input, making the thread, without reading the
// thread first. Should the thread exist after all, made meanwhile, the run
// joins it as it would have without the option: its owner checked, its
// history read. The option saves a new thread's turn one read of the store.
func WithNewThread() RunOption {
	return func(o *runOptions) { o.newThread = true }
}
