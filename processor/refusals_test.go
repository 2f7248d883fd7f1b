package processor_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/processor"
)

// refusalsSetup is a handler remembering refusals in a counted ledger,
// on a clock the test moves.
type refusalsSetup struct {
	ledger *countingLedger
	clock  *clock
	rr     *processor.RememberedRefusals
	h      *processor.UnsupportedFileHandler
}

func newRefusals(t testing.TB) *refusalsSetup {
	t.Helper()
	s := &refusalsSetup{ledger: &countingLedger{next: memory.NewInMemory()}, clock: newClock()}
	rr, err := processor.NewRememberedRefusals(s.ledger, processor.RefusalOptions{Now: s.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	s.rr = rr
	s.h = processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Refusals: rr})
	return s
}

// entries returns the ledger's entries as "provider/model type status".
func (s *refusalsSetup) entries(t testing.TB) []string {
	t.Helper()
	list, err := s.ledger.next.ListRefusals(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range list {
		out = append(out, fmt.Sprintf("%s/%s %s %d", r.Provider, r.Model, r.MediaType, r.Status))
	}
	return sorted(out)
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

// quietRun is a run over msgs without a sandbox, whose logs go nowhere.
func quietRun(msgs ...keel.Message) *processor.Run {
	return fileRun(nil, &bytes.Buffer{}, msgs...)
}

// fail makes the run's call to model fail with err, and checks the
// decision.
func (s *refusalsSetup) fail(t *testing.T, run *processor.Run, model keel.Model, err error, want bool) {
	t.Helper()
	d, herr := s.h.HandleAPIError(context.Background(), &processor.APIErrorEvent{Run: run, Err: err, Prompt: run.Messages, Model: model})
	if herr != nil || d.Retry != want {
		t.Fatalf("Got(%v) = %+v, %v; want Retry %v", err, d, herr, want)
	}
}

// call rewrites a prompt of the run's messages for model; with ok, the
// call succeeded and the handler is told so.
func (s *refusalsSetup) call(t *testing.T, run *processor.Run, model keel.Model, ok bool) []keel.Message {
	t.Helper()
	req := &processor.LLMRequest{Run: run, Prompt: keel.CloneMessages(run.Messages), Model: model}
	if err := s.h.RewriteLLMRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if ok {
		s.h.ObserveResponse(context.Background(), &processor.LLMResponse{Run: run, Prompt: req.Prompt, Model: model})
	}
	return req.Prompt
}

func TestRememberedRefusalNamedBySDK(t *testing.T) {
	s := newRefusals(t)
	learned := s.clock.Now()
	first := quietRun(userMsg(xlsx))
	s.fail(t, first, flash, unsupported(xlsxType), true)
	if got, want := s.entries(t), []string{"google/gemini-2.5-flash " + xlsxType + " 0"}; !equalStrings(got, want) {
		t.Fatalf("Got(entries after an SDK refusal) = %q; want %q, at once", got, want)
	}

	s.clock.advance(time.Hour)
	later := quietRun(userMsg(text("again"), xlsx, docx, csv))
	prompt := s.call(t, later, flash, true)
	want := []string{"again", placeholder("leads.xlsx"), "file:memo.docx", "file:t.csv"}
	if got := partTexts(prompt[0]); !equalStrings(got, want) {
		t.Errorf("Got(a later run's first call) = %q; want %q: only the remembered type, before any failure", got, want)
	}
	recs := later.Recoveries()
	if len(recs) != 1 || recs[0].Cause == nil {
		t.Fatalf("Got(recoveries) = %+v; want one, with its cause", recs)
	}
	c := recs[0].Cause
	if c.Kind != "remembered-refusal" || c.Provider != "google" || c.Model != "gemini-2.5-flash" || c.MediaType != xlsxType ||
		c.Status != 0 || !c.LearnedAt.Equal(learned) || !c.ExpiresAt.Equal(learned.Add(24*time.Hour)) ||
		c.Message != "refused by the SDK before sending: '"+"file part media type "+xlsxType+"' functionality not supported." {
		t.Errorf("Got(cause) = %+v; want the remembered SDK refusal, learned at %v, for 24 h", c, learned)
	}
	if got := partTexts(s.call(t, quietRun(userMsg(xlsx)), pro, true)[0]); !equalStrings(got, []string{"file:leads.xlsx"}) {
		t.Errorf("Got(another model's call) = %q; want the file sent", got)
	}
}

func TestRememberedRefusalUnnamed(t *testing.T) {
	msg := userMsg(xlsx, docx, pdf, png, keel.FilePart{Data: []byte("x")})
	t.Run("remembered once the call without the files succeeds", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(msg)
		s.fail(t, run, flash, gemini502, true)
		if got := s.entries(t); len(got) != 0 {
			t.Fatalf("Got(entries before the retry) = %q; want none yet", got)
		}
		s.call(t, run, flash, true)
		want := sorted([]string{"google/gemini-2.5-flash " + docxType + " 502", "google/gemini-2.5-flash " + xlsxType + " 502"})
		if got := s.entries(t); !equalStrings(got, want) {
			t.Errorf("Got(entries) = %q; want %q: each unreadable type, never a wildcard", got, want)
		}
		s.call(t, run, flash, true)
		if _, records, _ := s.ledger.calls(); records != 2 {
			t.Errorf("Got(records after a second success) = %d; want 2: learned once", records)
		}
	})
	t.Run("not remembered when the retry fails too", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(msg)
		s.fail(t, run, flash, gemini502, true)
		s.call(t, run, flash, false)
		if got := s.entries(t); len(got) != 0 {
			t.Errorf("Got(entries) = %q; want none: the files may not have been the cause", got)
		}
	})
	t.Run("a named answer remembers the named type only", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(userMsg(xlsx, docx))
		s.fail(t, run, flash, namedAnswer(docxType), true)
		if got, want := s.entries(t), []string{"google/gemini-2.5-flash " + docxType + " 400"}; !equalStrings(got, want) {
			t.Errorf("Got(entries) = %q; want %q", got, want)
		}
		if got := partTexts(s.call(t, run, flash, true)[0]); !equalStrings(got, []string{placeholder("leads.xlsx"), placeholder("memo.docx")}) {
			t.Errorf("Got(retry) = %q; want both out for this run", got)
		}
		if got := s.entries(t); len(got) != 1 {
			t.Errorf("Got(entries after the retry) = %q; want the docx only", got)
		}
	})
	t.Run("no answer at all: retried, nothing remembered", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(msg)
		s.fail(t, run, flash, &keel.APICallError{Provider: "google", Message: "connection reset by peer", Retryable: true}, true)
		s.call(t, run, flash, true)
		if got := s.entries(t); len(got) != 0 {
			t.Errorf("Got(entries) = %q; want none: no answer says the model refused anything", got)
		}
	})
	t.Run("not a file's fault: nothing remembered", func(t *testing.T) {
		s := newRefusals(t)
		run := quietRun(msg)
		for _, status := range []int{401, 403, 404, 429, 503} {
			s.fail(t, run, flash, apiErr(status), false)
		}
		s.call(t, run, flash, true)
		if got := s.entries(t); len(got) != 0 {
			t.Errorf("Got(entries) = %q; want none", got)
		}
	})
}

// TestRememberedRefusalExpiry checks that an entry counts until it
// expires, that the file is then sent again, and that the model taking it
// removes the entry.
func TestRememberedRefusalExpiry(t *testing.T) {
	s := newRefusals(t)
	s.fail(t, quietRun(userMsg(xlsx)), flash, unsupported(xlsxType), true)

	s.clock.advance(24*time.Hour - time.Second)
	if got := partTexts(s.call(t, quietRun(userMsg(xlsx)), flash, false)[0]); !equalStrings(got, []string{placeholder("leads.xlsx")}) {
		t.Errorf("Got(a second before expiry) = %q; want the file handled before the call", got)
	}
	s.clock.advance(time.Second)
	if got := partTexts(s.call(t, quietRun(userMsg(xlsx)), flash, true)[0]); !equalStrings(got, []string{"file:leads.xlsx"}) {
		t.Errorf("Got(at expiry) = %q; want the file sent again", got)
	}
	if got := s.entries(t); len(got) != 0 {
		t.Errorf("Got(entries after the model took the file) = %q; want none", got)
	}

	// Refused again after expiry: learned anew, for another 24 h.
	s.fail(t, quietRun(userMsg(xlsx)), flash, unsupported(xlsxType), true)
	ok, found, err := s.rr.Refused(context.Background(), "google", "gemini-2.5-flash", xlsxType)
	if err != nil || !found || !ok.LearnedAt.Equal(s.clock.Now()) {
		t.Errorf("Got(refused) = %+v, %v, %v; want learned now", ok, found, err)
	}
}

// TestRememberedRefusalSuccessForgets checks that a call that carried a
// file forgets a refusal of its type, and that calls carrying no file of
// a remembered type cost the ledger nothing.
func TestRememberedRefusalSuccessForgets(t *testing.T) {
	s := newRefusals(t)
	ctx := context.Background()
	for _, mt := range []string{xlsxType, docxType} {
		if err := s.ledger.next.RecordRefusal(ctx, memory.Refusal{Provider: "google", Model: "gemini-2.5-flash", MediaType: mt,
			LearnedAt: s.clock.Now().Add(-48 * time.Hour), ExpiresAt: s.clock.Now().Add(-time.Hour), Status: 502}); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		s.call(t, quietRun(userMsg(text("no files"))), flash, true)
		s.call(t, quietRun(userMsg(csv)), flash, true)
	}
	if lists, records, forgets := s.ledger.calls(); lists != 1 || records != 0 || forgets != 0 {
		t.Errorf("Got(ledger calls) = %d lists, %d records, %d forgets; want 1 list, nothing else", lists, records, forgets)
	}
	s.call(t, quietRun(userMsg(xlsx)), flash, true)
	if got, want := s.entries(t), []string{"google/gemini-2.5-flash " + docxType + " 502"}; !equalStrings(got, want) {
		t.Errorf("Got(entries) = %q; want %q: the xlsx's refusal forgotten, the docx's kept", got, want)
	}
}

// TestRememberedRefusalsCache checks that the ledger is read once per
// Refresh, that an entry removed from the ledger by another process stops
// counting once Refresh has passed, and that what this value forgets
// stops counting at once.
func TestRememberedRefusalsCache(t *testing.T) {
	s := newRefusals(t)
	ctx := context.Background()
	seed := func(mt string) {
		t.Helper()
		if err := s.ledger.next.RecordRefusal(ctx, memory.Refusal{Provider: "google", Model: "gemini-2.5-flash", MediaType: mt,
			LearnedAt: s.clock.Now(), ExpiresAt: s.clock.Now().Add(time.Hour), Status: 502}); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(mt string) bool {
		t.Helper()
		_, ok, err := s.rr.Refused(ctx, "google", "gemini-2.5-flash", mt)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	seed(xlsxType)
	seed(docxType)
	for range 5 {
		if !refused(xlsxType) {
			t.Fatal("Got(refused) = false; want the entry read from the ledger")
		}
	}
	if lists, _, _ := s.ledger.calls(); lists != 1 {
		t.Errorf("Got(ledger reads for 5 checks) = %d; want 1", lists)
	}

	// Another process forgets the xlsx's entry.
	if _, err := s.ledger.next.ForgetRefusals(ctx, memory.RefusalKey{Provider: "google", Model: "gemini-2.5-flash", MediaType: xlsxType}); err != nil {
		t.Fatal(err)
	}
	s.clock.advance(processor.DefaultRefusalRefresh - time.Millisecond)
	if !refused(xlsxType) {
		t.Errorf("Got(refused before Refresh passed) = false; want the entry still used")
	}
	s.clock.advance(time.Millisecond)
	if refused(xlsxType) {
		t.Errorf("Got(refused once Refresh passed) = true; want the removal seen")
	}

	// This value forgets the docx's: at once.
	if n, err := s.rr.Forget(ctx, memory.RefusalKey{Provider: "google", Model: "gemini-2.5-flash"}); err != nil || n != 1 {
		t.Fatalf("Got(forget) = %d, %v; want 1", n, err)
	}
	if refused(docxType) {
		t.Errorf("Got(refused after Forget) = true; want false at once")
	}
	if lists, _, _ := s.ledger.calls(); lists != 2 {
		t.Errorf("Got(ledger reads) = %d; want 2", lists)
	}
}

// TestRememberedRefusalsLedgerFails checks that a failing ledger never
// stops a run: the handler acts as the reference framework's, logs, and
// asks the ledger again only once Refresh has passed.
func TestRememberedRefusalsLedgerFails(t *testing.T) {
	s := newRefusals(t)
	s.ledger.failWith(errors.New("database is locked"))
	var logs bytes.Buffer
	for range 3 {
		run := fileRun(nil, &logs, userMsg(xlsx))
		if got := partTexts(s.call(t, run, flash, false)[0]); !equalStrings(got, []string{"file:leads.xlsx"}) {
			t.Fatalf("Got(call with a failing ledger) = %q; want the file sent", got)
		}
		s.fail(t, run, flash, unsupported(xlsxType), true)
		if got := partTexts(s.call(t, run, flash, true)[0]); !equalStrings(got, []string{placeholder("leads.xlsx")}) {
			t.Fatalf("Got(retry) = %q; want the placeholder", got)
		}
	}
	if lists, _, _ := s.ledger.calls(); lists != 1 {
		t.Errorf("Got(ledger reads) = %d; want 1 until Refresh passes", lists)
	}
	if l := logs.String(); !strings.Contains(l, "database is locked") || !strings.Contains(l, "level=WARN") {
		t.Errorf("Got(log) = %q; want the ledger's failure warned of", l)
	}
}

// TestRememberedRefusalReason checks that the evidence kept is valid
// UTF-8, without NUL, and short, whatever the provider said.
func TestRememberedRefusalReason(t *testing.T) {
	s := newRefusals(t)
	msg := "bad\x00file \xff" + strings.Repeat("é", 600)
	s.fail(t, quietRun(userMsg(xlsx)), flash, withType(&keel.APICallError{Provider: "google", StatusCode: 400, Message: msg}, xlsxType), true)
	list, _ := s.ledger.next.ListRefusals(context.Background())
	if len(list) != 1 {
		t.Fatalf("Got(entries) = %+v; want 1", list)
	}
	r := list[0].Reason
	if len(r) > memory.MaxRefusalReason || !utf8.ValidString(r) || strings.ContainsRune(r, 0) || !strings.HasPrefix(r, "badfile \uFFFDéé") {
		t.Errorf("Got(reason) = %q (%d bytes); want valid UTF-8 without NUL, at most %d bytes", r, len(r), memory.MaxRefusalReason)
	}
}

// TestRememberedRefusalsConcurrent checks, under the race detector, that
// checks, records and forgets from many runs at once are safe.
func TestRememberedRefusalsConcurrent(t *testing.T) {
	s := newRefusals(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				run := quietRun(userMsg(xlsx, docx))
				s.call(t, run, flash, false)
				if (i+j)%3 == 0 {
					s.fail(t, run, flash, unsupported(xlsxType), true)
				}
				if (i+j)%7 == 0 {
					s.clock.advance(processor.DefaultRefusalRefresh)
					s.call(t, run, flash, true)
				}
			}
		})
	}
	wg.Wait()
}

func TestNewRememberedRefusalsNeedsALedger(t *testing.T) {
	if _, err := processor.NewRememberedRefusals(nil, processor.RefusalOptions{}); err == nil {
		t.Error("Got(NewRememberedRefusals(nil)) = nil error; want one")
	}
	rr, _ := processor.NewRememberedRefusals(memory.NewInMemory(), processor.RefusalOptions{})
	if rr.Expiry() != 24*time.Hour {
		t.Errorf("Got(default expiry) = %v; want 24h", rr.Expiry())
	}
}

// BenchmarkRememberedRefusalsCheck measures what remembering refusals
// adds to a model call once the ledger was read: the lookup of one type,
// and the handler's rewrite of a 20-message prompt holding a file of a
// type the model takes, with and without remembered refusals (a ledger
// of 100 entries over 20 models).
func BenchmarkRememberedRefusalsCheck(b *testing.B) {
	s := newRefusals(b)
	ctx := context.Background()
	for m := range 20 {
		for i := range 5 {
			if err := s.ledger.next.RecordRefusal(ctx, memory.Refusal{Provider: "google", Model: fmt.Sprint("model-", m),
				MediaType: fmt.Sprintf("application/x-type-%d", i), LearnedAt: s.clock.Now(), ExpiresAt: s.clock.Now().Add(time.Hour)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	model := namedModel{provider: "google", name: "model-7"}
	var prompt []keel.Message
	for i := range 19 {
		prompt = append(prompt, userMsg(text(fmt.Sprint("message ", i))))
	}
	prompt = append(prompt, userMsg(text("and this"), csv))
	b.Run("lookup", func(b *testing.B) {
		for b.Loop() {
			if _, ok, _ := s.rr.Refused(ctx, "google", "model-7", "application/x-type-3"); !ok {
				b.Fatal("not refused")
			}
		}
	})
	for _, c := range []struct {
		name string
		h    *processor.UnsupportedFileHandler
	}{{"rewrite-with-refusals", s.h}, {"rewrite-without", processor.NewUnsupportedFileHandler()}} {
		b.Run(c.name, func(b *testing.B) {
			run := quietRun(prompt...)
			req := &processor.LLMRequest{Run: run, Prompt: prompt, Model: model}
			b.ReportAllocs()
			for b.Loop() {
				if err := c.h.RewriteLLMRequest(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
			if lists, _, _ := s.ledger.calls(); lists != 1 {
				b.Fatalf("Got(ledger reads) = %d; want 1: a warm cache", lists)
			}
		})
	}
}

// BenchmarkRememberedRefusalsRead measures what the cache spares: a check
// that reads the ledger (once per Refresh) from a SQLite file of 100
// entries, against one answered from memory.
func BenchmarkRememberedRefusalsRead(b *testing.B) {
	store, err := sqlitestore.Open(filepath.Join(b.TempDir(), "k.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	clk := newClock()
	ctx := context.Background()
	for m := range 20 {
		for i := range 5 {
			if err := store.RecordRefusal(ctx, memory.Refusal{Provider: "google", Model: fmt.Sprint("model-", m),
				MediaType: fmt.Sprintf("application/x-type-%d", i), LearnedAt: clk.Now(), ExpiresAt: clk.Now().AddDate(10, 0, 0), Status: 502}); err != nil {
				b.Fatal(err)
			}
		}
	}
	rr, err := processor.NewRememberedRefusals(store, processor.RefusalOptions{Now: clk.Now})
	if err != nil {
		b.Fatal(err)
	}
	for _, cold := range []bool{true, false} {
		b.Run(fmt.Sprintf("ledger-read=%v", cold), func(b *testing.B) {
			for b.Loop() {
				if cold {
					clk.advance(processor.DefaultRefusalRefresh) // what was read is stale
				}
				if _, ok, err := rr.Refused(ctx, "google", "model-7", "application/x-type-3"); err != nil || !ok {
					b.Fatal("not refused", err)
				}
			}
		})
	}
}
