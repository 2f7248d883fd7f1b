package processor_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/processor"
)

// fakeFileStore is a provider's file store that keeps nothing but counts
// uploads.
type fakeFileStore struct {
	limit int64
	ttl   time.Duration
	mu    sync.Mutex
	ups   []string // digests, in order
	fail  error
	// started, when not nil, is closed as an upload starts, which then
	// waits for its context to end.
	started chan struct{}
}

func (s *fakeFileStore) InlineLimit() int64 { return s.limit }
func (s *fakeFileStore) FileScope() string  { return "fake http://127.0.0.1:9 key:0011223344556677" }

func (s *fakeFileStore) UploadFile(ctx context.Context, f keel.FilePart) (keel.ProviderFile, error) {
	if s.started != nil {
		close(s.started)
		<-ctx.Done()
		return keel.ProviderFile{}, fmt.Errorf("fake: upload: %w", ctx.Err())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return keel.ProviderFile{}, s.fail
	}
	data, err := f.InlineData()
	if err != nil {
		return keel.ProviderFile{}, err
	}
	s.ups = append(s.ups, digestOf(data))
	ttl := s.ttl
	if ttl == 0 {
		ttl = 48 * time.Hour
	}
	return keel.ProviderFile{Ref: fmt.Sprintf("file-%d", len(s.ups)), MediaType: f.MediaType, ExpiresAt: time.Now().Add(ttl)}, nil
}

func (s *fakeFileStore) uploads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ups)
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// storeModel is a model whose provider has a file store, or says it has
// none (store nil), as an OpenAI-compatible server does.
type storeModel struct {
	namedModel
	store *fakeFileStore
}

func (m storeModel) FileStore() keel.FileStore {
	if m.store == nil {
		return nil
	}
	return m.store
}

// refSetup is a handler sending files by reference, its store of
// references, its remembered refusals and the provider's file store.
type refSetup struct {
	*refusalsSetup
	files memory.ProviderFiles
	fs    *fakeFileStore
	model storeModel
}

func newRefSetup(t testing.TB, limit int64) *refSetup {
	t.Helper()
	s := &refSetup{refusalsSetup: newRefusals(t), files: memory.NewInMemory(), fs: &fakeFileStore{limit: limit}}
	s.model = storeModel{namedModel: namedModel{provider: "google", name: "gemini-2.5-flash"}, store: s.fs}
	s.h = processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Refusals: s.rr, ProviderFiles: s.files,
		BlameReadableFiles: true})
	return s
}

var (
	bigPDF   = keel.FilePart{Data: bytes.Repeat([]byte("B"), 40), MediaType: "application/pdf", Filename: "big.pdf"}
	smallPDF = keel.FilePart{Data: bytes.Repeat([]byte("s"), 10), MediaType: "application/pdf", Filename: "small.pdf"}
)

// refTexts is partTexts with a file by reference shown as "ref:URL".
func refTexts(m keel.Message) []string {
	var out []string
	for _, p := range m.Parts {
		if f, ok := p.(keel.FilePart); ok && !f.IsInline() {
			out = append(out, "ref:"+f.URL+" "+f.Filename+" "+f.MediaType)
			continue
		}
		out = append(out, partTexts(keel.Message{Parts: []keel.Part{p}})...)
	}
	return out
}

func TestProviderFileOverInlineLimit(t *testing.T) {
	// 40 bytes are 56 as base64, 10 are 16: 72 in all, over 30; the big
	// one goes, and 16 are left.
	s := newRefSetup(t, 30)
	msg := userMsg(text("read both"), smallPDF, bigPDF)
	run := quietRun(msg)
	want := []string{"read both", "file:small.pdf", "ref:file-1 big.pdf application/pdf"}
	if got := refTexts(s.call(t, run, s.model, true)[0]); !equalStrings(got, want) {
		t.Fatalf("Got(prompt) = %q; want %q", got, want)
	}
	recs := run.Recoveries()
	if len(recs) != 1 || recs[0].Action != processor.OutcomeProviderFile || len(recs[0].Files) != 1 ||
		recs[0].Files[0].Ref != "file-1" || recs[0].Files[0].Size != 40 || recs[0].Files[0].SHA256 != digestOf(bigPDF.Data) ||
		recs[0].Cause == nil || recs[0].Cause.Kind != processor.CauseInlineLimit || !strings.Contains(recs[0].Cause.Message, "72 bytes") {
		t.Errorf("Got(recoveries) = %+v; want big.pdf by reference file-1, for the inline limit", recs)
	}
	// A second call of the run: the same reference, no upload, nothing
	// reported again.
	if got := refTexts(s.call(t, run, s.model, true)[0]); !equalStrings(got, want) || s.fs.uploads() != 1 || len(run.Recoveries()) != 1 {
		t.Errorf("Got(second call) = %q, %d uploads, %d recoveries; want the same prompt, 1 upload, 1 recovery", got, s.fs.uploads(), len(run.Recoveries()))
	}
	if !bytes.Equal(run.Messages[0].Parts[2].(keel.FilePart).Data, bigPDF.Data) {
		t.Errorf("Got(the run's message) changed; want stored messages never changed")
	}
	// Later runs (turns) reuse the stored reference.
	for turn := 2; turn <= 3; turn++ {
		later := quietRun(msg)
		if got := refTexts(s.call(t, later, s.model, true)[0]); !equalStrings(got, want) {
			t.Errorf("Got(turn %d) = %q; want %q", turn, got, want)
		}
		if recs := later.Recoveries(); len(recs) != 1 || recs[0].Files[0].Ref != "file-1" {
			t.Errorf("Got(turn %d recoveries) = %+v; want the reference reported", turn, recs)
		}
	}
	if n := s.fs.uploads(); n != 1 {
		t.Errorf("Got(uploads after 3 turns) = %d; want 1", n)
	}
}

func TestProviderFileExpired(t *testing.T) {
	s := newRefSetup(t, 30)
	scope := s.fs.FileScope()
	if err := s.files.SaveProviderFile(context.Background(), scope, digestOf(bigPDF.Data),
		keel.ProviderFile{Ref: "file-old", MediaType: "application/pdf", ExpiresAt: time.Now().Add(-time.Minute)}); err != nil {
		t.Fatal(err)
	}
	run := quietRun(userMsg(bigPDF))
	if got := refTexts(s.call(t, run, s.model, true)[0]); !equalStrings(got, []string{"ref:file-1 big.pdf application/pdf"}) || s.fs.uploads() != 1 {
		t.Errorf("Got(prompt with an expired reference stored) = %q, %d uploads; want a new upload, file-1", got, s.fs.uploads())
	}
	if f, ok, _ := s.files.ProviderFile(context.Background(), scope, digestOf(bigPDF.Data)); !ok || f.Ref != "file-1" {
		t.Errorf("Got(stored reference) = %+v, %v; want file-1 saved over file-old", f, ok)
	}
}

func TestProviderFileAfterSizeRefusal(t *testing.T) {
	// The declared limit is not reached: the provider's refusal says.
	s := newRefSetup(t, 1<<20)
	msg := userMsg(text("read"), smallPDF, bigPDF)
	run := quietRun(msg)
	if got := refTexts(s.call(t, run, s.model, false)[0]); !equalStrings(got, []string{"read", "file:small.pdf", "file:big.pdf"}) {
		t.Fatalf("Got(first call) = %q; want both inline, under the limit", got)
	}
	s.fail(t, run, s.model, apiRefusal(400, keel.FaultFileSize, "", "", 30), true)
	want := []string{"read", "file:small.pdf", "ref:file-1 big.pdf application/pdf"}
	if got := refTexts(s.call(t, run, s.model, true)[0]); !equalStrings(got, want) {
		t.Fatalf("Got(retry) = %q; want %q", got, want)
	}
	if recs := run.Recoveries(); len(recs) != 1 || recs[0].Action != processor.OutcomeProviderFile || recs[0].Cause.Kind != processor.CauseAPIError {
		t.Errorf("Got(recoveries) = %+v; want the file by reference, for the refusal", recs)
	}
	// A later turn: remembered refused, and sent by reference before the
	// first call, without an upload.
	later := quietRun(msg)
	if got := refTexts(s.call(t, later, s.model, true)[0]); !equalStrings(got, want) || s.fs.uploads() != 1 {
		t.Errorf("Got(later turn) = %q, %d uploads; want %q and no new upload", got, s.fs.uploads(), want)
	}
	if recs := later.Recoveries(); len(recs) != 1 || recs[0].Cause.Kind != processor.CauseRememberedRefusal {
		t.Errorf("Got(later recoveries) = %+v; want the remembered refusal", recs)
	}
}

// TestProviderFileHandledAsRefused checks the files that never go by
// reference: refused for their pages or type, a model without a file
// store, a handler without a store of references, a failed upload.
func TestProviderFileHandledAsRefused(t *testing.T) {
	compatible := storeModel{namedModel: namedModel{provider: "ollama", name: "llama3.2"}}
	tests := []struct {
		name    string
		setup   func(s *refSetup) keel.Model
		refusal *keel.APICallError
		logs    string
	}{
		{"pages", func(s *refSetup) keel.Model { return s.model }, apiRefusal(400, keel.FaultFilePages, "application/pdf", "", 100), ""},
		{"its type", func(s *refSetup) keel.Model { return s.model }, apiRefusal(400, keel.FaultFileType, "application/pdf", "", 0), ""},
		{"a server without a file store", func(s *refSetup) keel.Model { return compatible }, apiRefusal(413, keel.FaultFileSize, "", "", 0), ""},
		{"no store of references", func(s *refSetup) keel.Model {
			s.h = processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Refusals: s.rr})
			return s.model
		}, apiRefusal(400, keel.FaultFileSize, "", "", 30), ""},
		{"a failed upload", func(s *refSetup) keel.Model {
			s.fs.fail = &keel.APICallError{Provider: "google", StatusCode: 500, Message: "upload failed"}
			return s.model
		}, apiRefusal(400, keel.FaultFileSize, "", "", 30), "file not sent to the provider's file store; handled as refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newRefSetup(t, 1<<20)
			m := tt.setup(s)
			var logs bytes.Buffer
			run := fileRun(nil, &logs, userMsg(text("read"), bigPDF))
			s.fail(t, run, m, tt.refusal, true)
			want := []string{"read", placeholder("big.pdf")}
			if got := refTexts(s.call(t, run, m, true)[0]); !equalStrings(got, want) {
				t.Errorf("Got(retry) = %q; want %q", got, want)
			}
			if tt.name != "a failed upload" && s.fs.uploads() != 0 {
				t.Errorf("Got(uploads) = %d; want none", s.fs.uploads())
			}
			if tt.logs != "" && !strings.Contains(logs.String(), tt.logs) {
				t.Errorf("Got(logs) = %q; want %q", logs.String(), tt.logs)
			}
		})
	}
}

func TestProviderFileGone(t *testing.T) {
	s := newRefSetup(t, 30)
	run := quietRun(userMsg(bigPDF))
	gone := &keel.APICallError{Provider: "google", StatusCode: 403, Message: "You do not have permission to access the File f1 or it may not exist.",
		Fault: keel.FaultFileGone}
	first := s.call(t, run, s.model, false)
	if got := refTexts(first[0]); !equalStrings(got, []string{"ref:file-1 big.pdf application/pdf"}) {
		t.Fatalf("Got(first call) = %q; want file-1", got)
	}
	d, err := s.h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: gone, Prompt: first, Model: s.model})
	if err != nil || !d.Retry {
		t.Fatalf("Got(a reference gone) = %+v, %v; want a retry", d, err)
	}
	if _, ok, _ := s.files.ProviderFile(context.Background(), s.fs.FileScope(), digestOf(bigPDF.Data)); ok {
		t.Errorf("Got(the gone reference) still stored; want it forgotten")
	}
	second := s.call(t, run, s.model, false)
	if got := refTexts(second[0]); !equalStrings(got, []string{"ref:file-2 big.pdf application/pdf"}) || s.fs.uploads() != 2 {
		t.Fatalf("Got(retry) = %q after %d uploads; want the file uploaded again, file-2", got, s.fs.uploads())
	}
	d, _ = s.h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: gone, Prompt: second, Model: s.model})
	if !d.Retry {
		t.Fatalf("Got(gone again) = no retry; want one, the file handled as refused")
	}
	if got := refTexts(s.call(t, run, s.model, true)[0]); !equalStrings(got, []string{placeholder("big.pdf")}) || s.fs.uploads() != 2 {
		t.Errorf("Got(third call) = %q after %d uploads; want the placeholder, no third upload", got, s.fs.uploads())
	}
	// A gone answer to a call that carried none of the run's references is
	// not the handler's to mend.
	other := quietRun(userMsg(keel.FilePart{URL: "file-user", MediaType: "application/pdf"}))
	d, _ = s.h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: other, Err: gone, Prompt: other.Messages, Model: s.model})
	if d.Retry {
		t.Errorf("Got(gone, for a reference the user gave) = retry; want none")
	}
}

// TestProviderFileRefusedByReference checks a file the provider refuses
// by reference as it did inline (its pages): handled as refused,
// remembered, and its reference forgotten, so that no later turn uploads
// it for nothing.
func TestProviderFileRefusedByReference(t *testing.T) {
	s := newRefSetup(t, 30)
	run := quietRun(userMsg(bigPDF))
	first := s.call(t, run, s.model, false)
	pages := apiRefusal(400, keel.FaultFilePages, "application/pdf", "", 100)
	d, err := s.h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: pages, Prompt: first, Model: s.model})
	if err != nil || !d.Retry {
		t.Fatalf("Got(pages, by reference) = %+v, %v; want a retry", d, err)
	}
	if got := refTexts(s.call(t, run, s.model, true)[0]); !equalStrings(got, []string{placeholder("big.pdf")}) {
		t.Errorf("Got(retry) = %q; want the placeholder", got)
	}
	later := quietRun(userMsg(bigPDF))
	if got := refTexts(s.call(t, later, s.model, true)[0]); !equalStrings(got, []string{placeholder("big.pdf")}) || s.fs.uploads() != 1 {
		t.Errorf("Got(later turn) = %q, %d uploads; want the placeholder at once, no new upload", got, s.fs.uploads())
	}
}

// TestProviderFileCancelledUpload checks that an upload cut short by the
// run's context ends the rewrite with the context's error, and leaves
// nothing behind: no reference stored, the file not handled as refused,
// and the next call of the run uploads it.
func TestProviderFileCancelledUpload(t *testing.T) {
	s := newRefSetup(t, 30)
	s.fs.started = make(chan struct{})
	var logs bytes.Buffer
	run := fileRun(nil, &logs, userMsg(text("read"), bigPDF))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-s.fs.started; cancel() }()
	req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(run.Messages), Model: s.model}
	if err := s.h.RewriteLLMRequest(ctx, req); err != context.Canceled {
		t.Fatalf("RewriteLLMRequest(cancelled mid-upload) = %v; want context.Canceled", err)
	}
	if _, ok, _ := s.files.ProviderFile(context.Background(), s.fs.FileScope(), digestOf(bigPDF.Data)); ok {
		t.Errorf("Got(a reference stored) after a cancelled upload; want none")
	}
	if len(run.Recoveries()) != 0 || logs.Len() != 0 {
		t.Errorf("Got(recoveries %+v, logs %q) after a cancelled upload; want neither", run.Recoveries(), logs.String())
	}
	s.fs.started = nil
	if got := refTexts(s.call(t, run, s.model, true)[0]); !equalStrings(got, []string{"read", "ref:file-1 big.pdf application/pdf"}) || s.fs.uploads() != 1 {
		t.Errorf("Got(next call) = %q, %d uploads; want the file uploaded and sent by reference", got, s.fs.uploads())
	}
}

// TestProviderFileDataURL checks a file given as a data: URL goes by
// reference too, its size reckoned without decoding it.
func TestProviderFileDataURL(t *testing.T) {
	s := newRefSetup(t, 30)
	f := keel.FilePart{URL: keel.DataURL("application/pdf", bigPDF.Data), MediaType: "application/pdf", Filename: "big.pdf"}
	run := quietRun(userMsg(f))
	if got := refTexts(s.call(t, run, s.model, true)[0]); !equalStrings(got, []string{"ref:file-1 big.pdf application/pdf"}) {
		t.Errorf("Got(prompt) = %q; want the data: URL by reference", got)
	}
	if recs := run.Recoveries(); len(recs) != 1 || recs[0].Files[0].Size != 40 {
		t.Errorf("Got(recoveries) = %+v; want size 40", recs)
	}
}

// BenchmarkProviderFileRewrite measures the keel time of a later turn's
// call whose 25 MiB PDF goes by a reference found in a SQLite store: the
// rewrite of a fresh run, the lookup included; no upload.
func BenchmarkProviderFileRewrite(b *testing.B) {
	st, err := sqlitestore.Open(filepath.Join(b.TempDir(), "k.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	pdf := make([]byte, 25<<20)
	sum := digestOf(pdf)
	fs := &fakeFileStore{limit: 20 << 20}
	if err := st.SaveProviderFile(context.Background(), fs.FileScope(), sum,
		keel.ProviderFile{Ref: "https://generativelanguage.googleapis.com/v1beta/files/f1", MediaType: "application/pdf", ExpiresAt: time.Now().Add(48 * time.Hour)}); err != nil {
		b.Fatal(err)
	}
	h := processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{ProviderFiles: st})
	model := storeModel{namedModel: namedModel{provider: "google", name: "gemini-2.5-flash"}, store: fs}
	// As a store returns it: the digest known.
	history := []keel.Message{
		userMsg(text("Summarise the report"), keel.FilePart{Data: pdf, MediaType: "application/pdf", Filename: "report.pdf", SHA256: sum}),
		{Role: keel.RoleAssistant, Parts: []keel.Part{text("It says sales rose.")}},
		userMsg(text("And costs?")),
	}
	b.ReportAllocs()
	for b.Loop() {
		run := quietRun(history...)
		req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(history), Model: model}
		if err := h.RewriteLLMRequest(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		if f, ok := req.Prompt[0].Parts[1].(keel.FilePart); !ok || f.IsInline() {
			b.Fatal("the PDF did not go by reference")
		}
	}
	if fs.uploads() != 0 {
		b.Fatalf("Got(uploads) = %d; want none", fs.uploads())
	}
}
