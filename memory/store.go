package memory

import (
	"context"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory/internal/stored"
)

// Store keeps threads and their messages. Every call names the resource
// (owner) it acts for, and a thread of another resource is reported as not
// found: a store never returns or touches another resource's thread. The
// one exception is [Store.ThreadOwner], for the runtime's own checks.
// Implementations are safe for concurrent use.
type Store interface {
	// CreateThread stores a new thread. An empty ID gets a generated one;
	// zero times are set to now. A thread with that ID already existing is
	// an error wrapping [ErrConflict].
	CreateThread(ctx context.Context, t Thread) (Thread, error)
	// GetThread returns the thread, or an error wrapping [ErrNotFound].
	GetThread(ctx context.Context, resourceID, threadID string) (Thread, error)
	// ThreadOwner returns the ID of the resource that owns the thread, or
	// an error wrapping [ErrNotFound] when there is no such thread, and
	// one wrapping [ErrInvalid] for an ID that cannot be stored. It finds
	// a thread by its ID alone, for the runtime's own checks (telling a
	// new thread from another resource's before a run, finding a thread
	// when a request names no resource): whoever calls it must never let
	// a caller learn from it that another resource's thread exists, and
	// answers for another resource's thread exactly as for a missing one.
	ThreadOwner(ctx context.Context, threadID string) (string, error)
	// ListThreads returns a page of the resource's threads, each with its
	// [Thread.MessageCount].
	ListThreads(ctx context.Context, resourceID string, opts ListThreadsOptions) (ThreadPage, error)
	// UpdateThread changes the title and metadata of a thread.
	UpdateThread(ctx context.Context, t Thread) (Thread, error)
	// DeleteThread removes a thread and its messages.
	DeleteThread(ctx context.Context, resourceID, threadID string) error
	// SaveMessages stores messages in a thread, all or none. Messages
	// without an ID get one, zero CreatedAt gets now; a message whose ID is
	// already stored in the thread is replaced. It returns the messages as
	// stored, each file kept inline with its [keel.FilePart.SHA256] set.
	SaveMessages(ctx context.Context, resourceID, threadID string, msgs []keel.Message) ([]keel.Message, error)
	// ListMessages returns a page, or the last messages, of the thread,
	// oldest first (see [ListMessagesOptions]), each file kept inline with
	// its [keel.FilePart.SHA256] set.
	ListMessages(ctx context.Context, resourceID, threadID string, opts ListMessagesOptions) (MessagePage, error)
	// Close releases the store's resources.
	Close() error
}

// ThreadStarter is implemented by stores that can create a thread and
// save its first messages in one step, which costs one commit where
// [Store.CreateThread] and [Store.SaveMessages] cost two. Callers that
// find a thread missing use it when the store has it.
type ThreadStarter interface {
	// StartThread creates t, as [Store.CreateThread] does, and stores msgs
	// in it, as [Store.SaveMessages] does, all or none. A thread with that
	// ID already existing, of any resource, is an error wrapping
	// [ErrConflict] and changes nothing, so that the caller can load the
	// thread and save msgs in it instead. It returns the thread and the
	// messages as stored.
	StartThread(ctx context.Context, t Thread, msgs []keel.Message) (Thread, []keel.Message, error)
}

// Thread is a conversation owned by a resource (a user, an account).
type Thread struct {
	ID         string
	ResourceID string
	Title      string
	Metadata   map[string]any
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// MessageCount is the number of messages in the thread when the store
	// read it, kept by the store as it saves them (no count of the rows
	// on each read). CreateThread and UpdateThread ignore it.
	MessageCount int
}

// ListThreadsOptions pages and orders [Store.ListThreads]. The zero value
// lists the first 100 threads, newest created first.
type ListThreadsOptions struct {
	// Page is zero-based.
	Page int
	// PerPage is the page size; 0 means 100.
	PerPage int
	// OrderBy is "createdAt" (default) or "updatedAt".
	OrderBy string
	// Ascending orders oldest first; the default is newest first.
	Ascending bool
}

// ThreadPage is one page of threads.
type ThreadPage struct {
	Threads []Thread
	Total   int
	Page    int
	PerPage int
	HasMore bool
}

// ListMessagesOptions pages [Store.ListMessages]. The zero value lists all
// messages.
//
// A thread's messages are in one order, that of their CreatedAt and, for
// equal times, of their saving (messages saved in one call in the order
// given; a replaced message keeps its place unless given another time).
// Every page and window is a part of that order: a window of Last n
// messages is exactly the end of the whole list, so a tool result saved
// after the call that asked for it always follows it. A caller that wants
// a call and its result together at a window's edge checks the window's
// first message and asks for a larger one.
type ListMessagesOptions struct {
	// Page is zero-based.
	Page int
	// PerPage is the page size; 0 means all messages.
	PerPage int
	// Last, when not 0, asks for the thread's last Last messages only,
	// oldest first: the history window an agent sends a model. The store
	// reads only those rows, whatever the thread's length. Page and
	// PerPage must then be 0.
	Last int
}

// MessagePage is one page of messages, oldest first.
type MessagePage struct {
	Messages []keel.Message
	// Total is the number of messages in the thread.
	Total   int
	Page    int
	PerPage int
	// HasMore reports that the thread holds messages after the page, or,
	// for a window of the last messages, before it.
	HasMore bool
}

// Errors that stores wrap, so callers can tell them apart with errors.Is.
var (
	// ErrNotFound: no such thread for that resource.
	ErrNotFound = stored.ErrNotFound
	// ErrConflict: the thread or message already exists.
	ErrConflict = stored.ErrConflict
	// ErrInvalid: the input is not acceptable (empty IDs, a file name that is
	// not UTF-8, ...).
	ErrInvalid = stored.ErrInvalid
	// ErrCorrupt: stored data failed its integrity check.
	ErrCorrupt = stored.ErrCorrupt
)

// BlobReporter is implemented by stores that keep file bytes as blobs
// shared by the messages that hold them. Tests and benchmarks use it to
// watch reference counting and reads.
type BlobReporter interface {
	// BlobStats describes the blobs stored now.
	BlobStats(ctx context.Context) (BlobStats, error)
}

// BlobStats describes a store's blobs.
type BlobStats struct {
	// Blobs is the number of distinct file contents stored.
	Blobs int
	// Bytes is their total size.
	Bytes int64
	// Reads counts the blobs this store value has read since it was
	// opened; loading a thread reads each blob it needs once.
	Reads int64
}
