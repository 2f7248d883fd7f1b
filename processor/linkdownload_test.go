package processor_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/fetch"
	"github.com/keel-go/keel/processor"
)

// linkRequest is a request whose prompt sends url twice, in two messages
// with IDs, each a link file.
func linkRequest(run *processor.Run, url string) *processor.LLMRequest {
	msg := func(id string) keel.Message {
		return keel.Message{ID: id, Role: keel.RoleUser, Parts: []keel.Part{keel.FilePart{URL: url, MediaType: "text/csv"}}}
	}
	return &processor.LLMRequest{Run: run, Prompt: []keel.Message{msg("m1"), msg("m2")}}
}

// storedChanges records what the processor asked the agent to store,
// each change made to a clone of the message as stored: link's file,
// with metadata of its own.
// The clone shares meta, as an agent's clone shares the stored message's
// metadata: a change must not write into it.
type storedChanges struct {
	link string
	meta map[string]any
	ids  []string
	msgs []keel.Message
}

func (s *storedChanges) update(_ context.Context, id string, change func(*keel.Message)) {
	if s.meta == nil {
		s.meta = map[string]any{"kept": true}
	}
	m := keel.Message{ID: id, Role: keel.RoleUser, Metadata: s.meta,
		Parts: []keel.Part{keel.TextPart{Text: "read this"}, keel.FilePart{URL: s.link, MediaType: "text/csv"}}}
	change(&m)
	s.ids, s.msgs = append(s.ids, id), append(s.msgs, m)
}

func localFetch(t *testing.T) *fetch.Client {
	t.Helper()
	c, err := fetch.New(fetch.Options{AllowHosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLinkDownloadOncePerRun(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/csv")
		w.Write([]byte("a,b\n"))
	}))
	defer srv.Close()
	run := processor.NewRun("r", nil)
	var stored storedChanges
	run.UpdateStored = stored.update
	links := &processor.LinkDownload{Client: localFetch(t)}
	for step := range 2 {
		req := linkRequest(run, srv.URL+"/q3/leads.csv")
		if err := links.RewriteLLMRequest(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		for _, m := range req.Prompt {
			f, ok := m.Parts[0].(keel.FilePart)
			if !ok || string(f.Data) != "a,b\n" || f.Filename != "leads.csv" || f.MediaType != "text/csv" || f.URL != "" {
				t.Fatalf("Got(step %d part) = %#v; want leads.csv's bytes", step, m.Parts[0])
			}
		}
	}
	if hits.Load() != 1 || len(stored.ids) != 0 || len(run.Recoveries()) != 0 {
		t.Errorf("Got %d downloads, %d stores, %d recoveries; want 1, 0 (no KeepCopies), 0", hits.Load(), len(stored.ids), len(run.Recoveries()))
	}
}

func TestLinkDownloadKeepsCopies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("a,b\n")) }))
	defer srv.Close()
	run := processor.NewRun("r", nil)
	var stored storedChanges
	run.UpdateStored = stored.update
	stored.link = srv.URL + "/"
	links := &processor.LinkDownload{Client: localFetch(t), KeepCopies: true}
	req := linkRequest(run, stored.link)
	req.Prompt = req.Prompt[:1]
	if err := links.RewriteLLMRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	// The stored message keeps its text and gets the copy in the link's place.
	if len(stored.ids) != 1 || stored.ids[0] != "m1" {
		t.Fatalf("Got(stores) = %v; want m1", stored.ids)
	}
	if m := stored.msgs[0]; len(m.Parts) != 2 || m.Parts[0] != (keel.TextPart{Text: "read this"}) ||
		string(m.Parts[1].(keel.FilePart).Data) != "a,b\n" || m.Parts[1].(keel.FilePart).URL != "" {
		t.Fatalf("Got(stored parts) = %#v; want the text, then the copy", m.Parts)
	}
	// A link to "/" names no file: the part has none.
	if f := req.Prompt[0].Parts[0].(keel.FilePart); f.Filename != "" || f.MediaType != "text/csv" {
		t.Errorf("Got(part) = %q %q; want no name, the link's type", f.Filename, f.MediaType)
	}
}

func TestLinkDownloadFailureRemembered(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "expired", http.StatusForbidden)
	}))
	defer srv.Close()
	url := srv.URL + "/leads.csv?sig=x"
	run := processor.NewRun("r", nil)
	var stored storedChanges
	run.UpdateStored = stored.update
	req := linkRequest(run, url)
	if err := (&processor.LinkDownload{Client: localFetch(t)}).RewriteLLMRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	note, _ := req.Prompt[0].Parts[0].(keel.TextPart)
	if !strings.HasPrefix(note.Text, "[File not downloaded]\nname: leads.csv\nreason: ") || req.Prompt[1].Parts[0] != req.Prompt[0].Parts[0] {
		t.Fatalf("Got(parts) = %#v, %#v; want the same note twice", req.Prompt[0].Parts[0], req.Prompt[1].Parts[0])
	}
	recs := run.Recoveries()
	if len(recs) != 1 || recs[0].Processor != processor.LinkDownloadID || recs[0].Files[0].Outcome != processor.OutcomeNotDownloaded {
		t.Fatalf("Got(recoveries) = %+v; want one not-downloaded", recs)
	}
	// Only the message whose link was tried is marked, keeping its other
	// metadata; the second was answered from the run's cache.
	if len(stored.ids) != 1 || stored.ids[0] != "m1" || stored.msgs[0].Metadata["kept"] != true || len(stored.meta) != 1 {
		t.Fatalf("Got(stores) = %v %v, shared metadata %v; want m1 with its metadata kept, in a copy", stored.ids, stored.msgs, stored.meta)
	}
	failures, _ := stored.msgs[0].Metadata[processor.MetadataLinkFailures].(map[string]any)
	if reason, _ := failures[url].(string); reason == "" || !strings.Contains(note.Text, reason) {
		t.Fatalf("Got(failures) = %v; want the note's reason under the link", failures)
	}

	// A later run reads the failure from the message and fetches nothing.
	later := processor.NewRun("r2", nil)
	req = linkRequest(later, url)
	req.Prompt[0].Metadata = stored.msgs[0].Metadata
	if err := (&processor.LinkDownload{}).RewriteLLMRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got, _ := req.Prompt[0].Parts[0].(keel.TextPart); got != note || len(later.Recoveries()) != 0 {
		t.Errorf("Got(later part) = %#v, %d recoveries; want the remembered note, none", got, len(later.Recoveries()))
	}
}

func TestLinkDownloadRefusedIsNotRemembered(t *testing.T) {
	run := processor.NewRun("r", nil)
	var stored storedChanges
	run.UpdateStored = stored.update
	req := linkRequest(run, "https://files.example.com/leads.csv")
	if err := (&processor.LinkDownload{}).RewriteLLMRequest(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if len(stored.ids) != 0 || len(run.Recoveries()) != 1 {
		t.Errorf("Got %d stores, %d recoveries; want 0 (the rules alone refused it), 1", len(stored.ids), len(run.Recoveries()))
	}
}

func TestLinkDownloadCancelled(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	defer srv.Close()
	run := processor.NewRun("r", nil)
	var stored storedChanges
	run.UpdateStored = stored.update
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	err := (&processor.LinkDownload{Client: localFetch(t)}).RewriteLLMRequest(ctx, linkRequest(run, srv.URL+"/slow.csv"))
	if !errors.Is(err, context.Canceled) || len(stored.ids) != 0 || len(run.Recoveries()) != 0 {
		t.Errorf("Got %v, %d stores, %d recoveries; want context.Canceled and nothing else", err, len(stored.ids), len(run.Recoveries()))
	}
}
