package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/keel-go/keel"
)

// InMemory is a [Store] that keeps everything in the process's memory, for
// tests and for agents that need no history across restarts. It keeps
// messages in the stored form of the SQL stores (see [EncodedMessage]), so
// it accepts, refuses and returns exactly what they do, and nothing it
// returns shares memory with what it keeps. It is safe for concurrent use.
type InMemory struct {
	mu      sync.RWMutex
	threads map[string]*memThread
	blobs   map[string]*memBlob
	seq     int64
	reads   atomic.Int64
	now     func() time.Time
}

type memThread struct {
	t        Thread // Metadata is nil: it is kept encoded in meta.
	meta     []byte
	messages []memMessage // ordered by CreatedAt, then seq
}

type memMessage struct {
	EncodedMessage
	seq int64
}

type memBlob struct {
	data []byte
	refs int
}

var _ Store = (*InMemory)(nil)
var _ BlobReporter = (*InMemory)(nil)
var _ ThreadStarter = (*InMemory)(nil)
var _ ThreadOwnerFinder = (*InMemory)(nil)

// NewInMemory returns an empty in-memory store.
func NewInMemory() *InMemory {
	return &InMemory{
		threads: make(map[string]*memThread),
		blobs:   make(map[string]*memBlob),
		now:     time.Now,
	}
}

// CreateThread implements [Store.CreateThread].
func (s *InMemory) CreateThread(ctx context.Context, t Thread) (Thread, error) {
	if err := ctx.Err(); err != nil {
		return Thread{}, err
	}
	t, err := NewThread(t, s.now())
	if err != nil {
		return Thread{}, fmt.Errorf("memory: create thread: %w", err)
	}
	meta, _ := EncodeMetadata(t.Metadata) // NewThread checked it encodes
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.threads[t.ID]; ok {
		return Thread{}, fmt.Errorf("memory: create thread: %w: thread %q exists", ErrConflict, t.ID)
	}
	kept := t
	kept.Metadata = nil
	s.threads[t.ID] = &memThread{t: kept, meta: meta}
	return s.threadOut(s.threads[t.ID])
}

// threadOut returns a copy of th that shares nothing with the store.
func (s *InMemory) threadOut(th *memThread) (Thread, error) {
	t := th.t
	meta, err := DecodeMetadata(th.meta)
	if err != nil {
		return Thread{}, err
	}
	t.Metadata = meta
	return t, nil
}

// thread returns the resource's thread, or an error wrapping ErrNotFound.
// The caller holds s.mu.
func (s *InMemory) thread(resourceID, threadID string) (*memThread, error) {
	if err := CheckID("resource", resourceID); err != nil {
		return nil, err
	}
	if err := CheckID("thread", threadID); err != nil {
		return nil, err
	}
	th, ok := s.threads[threadID]
	if !ok || th.t.ResourceID != resourceID {
		return nil, fmt.Errorf("%w: thread %q of resource %q", ErrNotFound, threadID, resourceID)
	}
	return th, nil
}

// ThreadOwner implements [ThreadOwnerFinder].
func (s *InMemory) ThreadOwner(ctx context.Context, threadID string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := CheckID("thread", threadID); err != nil {
		return "", fmt.Errorf("memory: thread owner: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	th, ok := s.threads[threadID]
	if !ok {
		return "", fmt.Errorf("memory: thread owner: %w: thread %q", ErrNotFound, threadID)
	}
	return th.t.ResourceID, nil
}

// GetThread implements [Store.GetThread].
func (s *InMemory) GetThread(ctx context.Context, resourceID, threadID string) (Thread, error) {
	if err := ctx.Err(); err != nil {
		return Thread{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	th, err := s.thread(resourceID, threadID)
	if err != nil {
		return Thread{}, fmt.Errorf("memory: get thread: %w", err)
	}
	return s.threadOut(th)
}

// ListThreads implements [Store.ListThreads].
func (s *InMemory) ListThreads(ctx context.Context, resourceID string, opts ListThreadsOptions) (ThreadPage, error) {
	if err := ctx.Err(); err != nil {
		return ThreadPage{}, err
	}
	if err := CheckID("resource", resourceID); err != nil {
		return ThreadPage{}, fmt.Errorf("memory: list threads: %w", err)
	}
	opts, err := opts.Normalize()
	if err != nil {
		return ThreadPage{}, fmt.Errorf("memory: list threads: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var mine []*memThread
	for _, th := range s.threads {
		if th.t.ResourceID == resourceID {
			mine = append(mine, th)
		}
	}
	key := func(th *memThread) time.Time { return th.t.CreatedAt }
	if opts.OrderBy == "updatedAt" {
		key = func(th *memThread) time.Time { return th.t.UpdatedAt }
	}
	slices.SortFunc(mine, func(a, b *memThread) int {
		c := key(a).Compare(key(b))
		if c == 0 {
			c = cmp.Compare(a.t.ID, b.t.ID)
		}
		if !opts.Ascending {
			c = -c
		}
		return c
	})
	off, n, more := Window(opts.Page, opts.PerPage, len(mine))
	page := ThreadPage{Threads: make([]Thread, 0, n), Total: len(mine), Page: opts.Page, PerPage: opts.PerPage, HasMore: more}
	for _, th := range mine[off : off+n] {
		t, err := s.threadOut(th)
		if err != nil {
			return ThreadPage{}, fmt.Errorf("memory: list threads: %w", err)
		}
		page.Threads = append(page.Threads, t)
	}
	return page, nil
}

// UpdateThread implements [Store.UpdateThread]: it sets the title and
// metadata of the thread t names (by ID and resource) and its UpdatedAt to
// now.
func (s *InMemory) UpdateThread(ctx context.Context, t Thread) (Thread, error) {
	if err := ctx.Err(); err != nil {
		return Thread{}, err
	}
	if err := CheckThread(t); err != nil {
		return Thread{}, fmt.Errorf("memory: update thread: %w", err)
	}
	meta, _ := EncodeMetadata(t.Metadata) // CheckThread checked it encodes
	s.mu.Lock()
	defer s.mu.Unlock()
	th, err := s.thread(t.ResourceID, t.ID)
	if err != nil {
		return Thread{}, fmt.Errorf("memory: update thread: %w", err)
	}
	th.t.Title, th.meta = t.Title, meta
	th.t.UpdatedAt = StoredTime(s.now())
	return s.threadOut(th)
}

// DeleteThread implements [Store.DeleteThread].
func (s *InMemory) DeleteThread(ctx context.Context, resourceID, threadID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	th, err := s.thread(resourceID, threadID)
	if err != nil {
		return fmt.Errorf("memory: delete thread: %w", err)
	}
	for _, m := range th.messages {
		s.unref(m.Digests)
	}
	delete(s.threads, threadID)
	return nil
}

func (s *InMemory) unref(digests []string) {
	for _, d := range digests {
		b := s.blobs[d]
		if b.refs--; b.refs == 0 {
			delete(s.blobs, d)
		}
	}
}

// SaveMessages implements [Store.SaveMessages]. A replaced message with a
// zero CreatedAt keeps its stored time, and so its place in the thread.
// Saving sets the thread's UpdatedAt to now.
func (s *InMemory) SaveMessages(ctx context.Context, resourceID, threadID string, msgs []keel.Message) ([]keel.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	enc, blobs, err := EncodeMessages(msgs)
	if err != nil {
		return nil, fmt.Errorf("memory: save messages: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	th, err := s.thread(resourceID, threadID)
	if err != nil {
		return nil, fmt.Errorf("memory: save messages: %w", err)
	}
	s.save(th, enc, blobs, StoredTime(s.now()))
	return Stored(msgs, enc), nil
}

// save stores enc, whose files are blobs, in th, and sets its UpdatedAt
// to now. The caller holds s.mu.
func (s *InMemory) save(th *memThread, enc []EncodedMessage, blobs []Blob, now time.Time) {
	for _, b := range blobs {
		if _, ok := s.blobs[b.Digest]; !ok {
			s.blobs[b.Digest] = &memBlob{data: slices.Clone(b.Data)}
		}
	}
	for i := range enc {
		e := &enc[i]
		j := slices.IndexFunc(th.messages, func(m memMessage) bool { return m.ID == e.ID })
		// Count the new references before dropping the replaced
		// message's, so a file both hold is never let go.
		for _, d := range e.Digests {
			s.blobs[d].refs++
		}
		if j >= 0 {
			if e.CreatedAt.IsZero() {
				e.CreatedAt = th.messages[j].CreatedAt
			}
			s.unref(th.messages[j].Digests)
			th.messages[j].EncodedMessage = *e
			continue
		}
		if e.CreatedAt.IsZero() {
			e.CreatedAt = now
		}
		s.seq++
		th.messages = append(th.messages, memMessage{EncodedMessage: *e, seq: s.seq})
	}
	slices.SortStableFunc(th.messages, func(a, b memMessage) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	th.t.UpdatedAt = now
}

// StartThread implements [ThreadStarter]: the thread and its first
// messages are stored under one lock, so no call sees the one without the
// other.
func (s *InMemory) StartThread(ctx context.Context, t Thread, msgs []keel.Message) (Thread, []keel.Message, error) {
	if err := ctx.Err(); err != nil {
		return Thread{}, nil, err
	}
	t, err := NewThread(t, s.now())
	if err != nil {
		return Thread{}, nil, fmt.Errorf("memory: start thread: %w", err)
	}
	meta, _ := EncodeMetadata(t.Metadata) // NewThread checked it encodes
	enc, blobs, err := EncodeMessages(msgs)
	if err != nil {
		return Thread{}, nil, fmt.Errorf("memory: start thread: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.threads[t.ID]; ok {
		return Thread{}, nil, fmt.Errorf("memory: start thread: %w: thread %q exists", ErrConflict, t.ID)
	}
	kept := t
	kept.Metadata = nil
	th := &memThread{t: kept, meta: meta}
	s.threads[t.ID] = th
	s.save(th, enc, blobs, StoredTime(s.now()))
	out, err := s.threadOut(th)
	if err != nil {
		return Thread{}, nil, fmt.Errorf("memory: start thread: %w", err)
	}
	return out, Stored(msgs, enc), nil
}

// ListMessages implements [Store.ListMessages]. Each blob the page needs
// is copied once, and shared by the parts that hold it.
func (s *InMemory) ListMessages(ctx context.Context, resourceID, threadID string, opts ListMessagesOptions) (MessagePage, error) {
	if err := ctx.Err(); err != nil {
		return MessagePage{}, err
	}
	if err := opts.Check(); err != nil {
		return MessagePage{}, fmt.Errorf("memory: list messages: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	th, err := s.thread(resourceID, threadID)
	if err != nil {
		return MessagePage{}, fmt.Errorf("memory: list messages: %w", err)
	}
	off, n, more := Window(opts.Page, opts.PerPage, len(th.messages))
	page := MessagePage{Messages: make([]keel.Message, 0, n), Total: len(th.messages), Page: opts.Page, PerPage: opts.PerPage, HasMore: more}
	copies := make(map[string][]byte)
	blob := func(d string) ([]byte, error) {
		if data, ok := copies[d]; ok {
			return data, nil
		}
		b, ok := s.blobs[d]
		if !ok {
			return nil, fmt.Errorf("%w: blob %s is missing", ErrCorrupt, d)
		}
		data := slices.Clone(b.data)
		copies[d] = data
		s.reads.Add(1)
		return data, nil
	}
	for _, m := range th.messages[off : off+n] {
		msg, err := DecodeMessage(m.EncodedMessage, blob)
		if err != nil {
			return MessagePage{}, fmt.Errorf("memory: list messages: %w", err)
		}
		page.Messages = append(page.Messages, msg)
	}
	return page, nil
}

// BlobStats implements [BlobReporter].
func (s *InMemory) BlobStats(ctx context.Context) (BlobStats, error) {
	if err := ctx.Err(); err != nil {
		return BlobStats{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := BlobStats{Blobs: len(s.blobs), Reads: s.reads.Load()}
	for _, b := range s.blobs {
		st.Bytes += int64(len(b.data))
	}
	return st, nil
}

// Close implements [Store.Close]; an in-memory store holds nothing to
// release, and stays usable.
func (s *InMemory) Close() error { return nil }
