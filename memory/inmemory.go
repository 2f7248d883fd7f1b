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
	"github.com/keel-go/keel/memory/internal/stored"
)

// InMemory is a [Store] that keeps everything in the process's memory, for
// tests and for agents that need no history across restarts. It keeps
// messages in the stored form of the SQL stores, so it accepts, refuses
// and returns exactly what they do, and nothing it returns shares memory
// with what it keeps. It is also a [ThreadStarter], a [BlobReporter], a
// [RefusalLedger] and a [TurnQueue]. It is safe for concurrent use.
type InMemory struct {
	mu           sync.RWMutex
	threads      map[string]*memThread
	blobs        map[string]*memBlob
	refusals     map[RefusalKey]Refusal
	descriptions map[[2]string]FileDescription // by model and SHA-256
	turns        []memTurn                     // queued, oldest first
	seq          int64
	reads        atomic.Int64
	now          func() time.Time
}

type memThread struct {
	t        Thread // Metadata is nil: it is kept encoded in meta.
	meta     []byte
	messages []memMessage    // ordered by CreatedAt, then seq
	ids      map[string]bool // of messages
}

// insert puts m in its place among th's messages, found by binary
// search: at the end for a new message of now, the common case.
func (th *memThread) insert(m memMessage) {
	i, _ := slices.BinarySearchFunc(th.messages, m, func(a, b memMessage) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.seq, b.seq))
	})
	th.messages = slices.Insert(th.messages, i, m)
}

type memMessage struct {
	stored.Message
	seq int64
}

type memBlob struct {
	data []byte
	refs int
}

var (
	_ Store         = (*InMemory)(nil)
	_ BlobReporter  = (*InMemory)(nil)
	_ ThreadStarter = (*InMemory)(nil)
	_ RefusalLedger = (*InMemory)(nil)
)

// NewInMemory returns an empty in-memory store.
func NewInMemory() *InMemory {
	return &InMemory{
		threads:  make(map[string]*memThread),
		blobs:    make(map[string]*memBlob),
		refusals: make(map[RefusalKey]Refusal),
		now:      time.Now,
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
	meta, _ := stored.EncodeMetadata(t.Metadata) // NewThread checked it encodes
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.threads[t.ID]; ok {
		return Thread{}, fmt.Errorf("memory: create thread: %w: thread %q exists", ErrConflict, t.ID)
	}
	kept := t
	kept.Metadata = nil
	s.threads[t.ID] = &memThread{t: kept, meta: meta, ids: make(map[string]bool)}
	return s.threadOut(s.threads[t.ID])
}

// threadOut returns a copy of th that shares nothing with the store.
func (s *InMemory) threadOut(th *memThread) (Thread, error) {
	t := th.t
	meta, err := stored.DecodeMetadata(th.meta)
	if err != nil {
		return Thread{}, err
	}
	t.Metadata, t.MessageCount = meta, len(th.messages)
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

// ThreadOwner implements [Store.ThreadOwner].
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
	off, n, more := stored.Window(opts.Page, opts.PerPage, len(mine))
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
	meta, _ := stored.EncodeMetadata(t.Metadata) // CheckThread checked it encodes
	s.mu.Lock()
	defer s.mu.Unlock()
	th, err := s.thread(t.ResourceID, t.ID)
	if err != nil {
		return Thread{}, fmt.Errorf("memory: update thread: %w", err)
	}
	th.t.Title, th.meta = t.Title, meta
	th.t.UpdatedAt = stored.Time(s.now())
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
	s.turns = slices.DeleteFunc(s.turns, func(q memTurn) bool { return q.t.ThreadID == threadID })
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
	enc, blobs, err := stored.Encode(msgs)
	if err != nil {
		return nil, fmt.Errorf("memory: save messages: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	th, err := s.thread(resourceID, threadID)
	if err != nil {
		return nil, fmt.Errorf("memory: save messages: %w", err)
	}
	s.save(th, enc, blobs, stored.Time(s.now()))
	return stored.AsSaved(msgs, enc), nil
}

// save stores enc, whose files are blobs, in th, and sets its UpdatedAt
// to now. The caller holds s.mu.
func (s *InMemory) save(th *memThread, enc []stored.Message, blobs []stored.Blob, now time.Time) {
	for _, b := range blobs {
		if _, ok := s.blobs[b.Digest]; !ok {
			s.blobs[b.Digest] = &memBlob{data: slices.Clone(b.Data)}
		}
	}
	for i := range enc {
		e := &enc[i]
		// Count the new references before dropping the replaced
		// message's, so a file both hold is never let go.
		for _, d := range e.Digests {
			s.blobs[d].refs++
		}
		if th.ids[e.ID] {
			j := slices.IndexFunc(th.messages, func(m memMessage) bool { return m.ID == e.ID })
			old := th.messages[j]
			if e.CreatedAt.IsZero() {
				e.CreatedAt = old.CreatedAt
			}
			s.unref(old.Digests)
			// The replacement keeps the message's seq, and moves with its
			// time.
			th.messages = slices.Delete(th.messages, j, j+1)
			th.insert(memMessage{Message: *e, seq: old.seq})
			continue
		}
		if e.CreatedAt.IsZero() {
			e.CreatedAt = now
		}
		s.seq++
		th.ids[e.ID] = true
		th.insert(memMessage{Message: *e, seq: s.seq})
	}
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
	meta, _ := stored.EncodeMetadata(t.Metadata) // NewThread checked it encodes
	enc, blobs, err := stored.Encode(msgs)
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
	th := &memThread{t: kept, meta: meta, ids: make(map[string]bool)}
	s.threads[t.ID] = th
	s.save(th, enc, blobs, stored.Time(s.now()))
	out, err := s.threadOut(th)
	if err != nil {
		return Thread{}, nil, fmt.Errorf("memory: start thread: %w", err)
	}
	return out, stored.AsSaved(msgs, enc), nil
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
	off, n, more := stored.Window(opts.Page, opts.PerPage, len(th.messages))
	if opts.Last > 0 {
		off, n, more = stored.Last(opts.Last, len(th.messages))
	}
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
		msg, err := stored.Decode(m.Message, blob)
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
