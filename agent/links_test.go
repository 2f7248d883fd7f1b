package agent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/fetch"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// linkServer serves leads.csv until gone is set, then answers 404, as an
// expired signed link does; hits counts requests.
type linkServer struct {
	*httptest.Server
	hits atomic.Int64
	gone atomic.Bool
}

const leadsCSV = "Name,City\nAda,Berlin\n"

func newLinkServer(t *testing.T) *linkServer {
	ls := &linkServer{}
	ls.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ls.hits.Add(1)
		if ls.gone.Load() {
			http.Error(w, "expired", http.StatusNotFound)
			return
		}
		switch r.URL.Path {
		case "/leads.csv":
			w.Header().Set("Content-Type", "text/csv")
			w.Write([]byte(leadsCSV))
		case "/leads.xlsx":
			w.Header().Set("Content-Type", xlsxType)
			w.Write([]byte("PK\x03\x04 sheet"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ls.Close)
	return ls
}

func localLinks(t *testing.T) *fetch.Client {
	c, err := fetch.New(fetch.Options{AllowHosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func linkMsg(url, mediaType string) keel.Message {
	return userMsg(keel.TextPart{Text: "read this"}, keel.FilePart{URL: url, MediaType: mediaType})
}

// sentFile returns the first file part of the prompt's user messages.
func sentFile(prompt []keel.Message) (keel.FilePart, bool) {
	for _, m := range prompt {
		for _, p := range m.Parts {
			if f, ok := p.(keel.FilePart); ok && m.Role == keel.RoleUser {
				return f, true
			}
		}
	}
	return keel.FilePart{}, false
}

func promptText(prompt []keel.Message) string {
	var b strings.Builder
	for _, m := range prompt {
		b.WriteString(m.Text())
		b.WriteString("\n")
	}
	return b.String()
}

func TestLinkDownloadedAndStoredAsLink(t *testing.T) {
	forModes(t, func(t *testing.T, m mode) {
		ls := newLinkServer(t)
		model := keeltest.NewModel(keelReply{Text: "two leads"})
		store := memory.NewInMemory()
		a := newAgent(t, agent.Config{Model: model, Links: localLinks(t), Memory: store})
		_, _, err := m.run(context.Background(), a, []keel.Message{linkMsg(ls.URL+"/leads.csv", "text/csv")},
			agent.WithThread("t"), agent.WithResource("u"))
		if err != nil {
			t.Fatal(err)
		}
		f, ok := sentFile(model.Prompts()[0])
		if !ok || string(f.Data) != leadsCSV || f.Filename != "leads.csv" || f.MediaType != "text/csv" {
			t.Errorf("Got(file sent) = %+v; want the CSV's bytes, named", f)
		}
		page, _ := store.ListMessages(context.Background(), "u", "t", memory.ListMessagesOptions{})
		stored, _ := sentFile(page.Messages)
		if stored.URL != ls.URL+"/leads.csv" || stored.Data != nil {
			t.Errorf("Got(stored file) = %+v; want the link, not the bytes", stored)
		}
	})
}

func TestLinkKeepCopy(t *testing.T) {
	ls := newLinkServer(t)
	store := memory.NewInMemory()
	model := keeltest.NewModel(keelReply{Text: "ok"})
	model.RepeatLast = true
	a := newAgent(t, agent.Config{Model: model, Links: localLinks(t), Memory: store, KeepLinkCopies: true})
	opts := []agent.RunOption{agent.WithThread("t"), agent.WithResource("u")}
	if _, err := a.Generate(context.Background(), []keel.Message{linkMsg(ls.URL+"/leads.csv", "text/csv")}, opts...); err != nil {
		t.Fatal(err)
	}
	page, _ := store.ListMessages(context.Background(), "u", "t", memory.ListMessagesOptions{})
	if stored, _ := sentFile(page.Messages); string(stored.Data) != leadsCSV {
		t.Fatalf("Got(stored file) = %+v; want the copy", stored)
	}
	ls.gone.Store(true)
	if _, err := a.Generate(context.Background(), []keel.Message{keel.UserText("again")}, opts...); err != nil {
		t.Fatal(err)
	}
	if f, _ := sentFile(model.Prompts()[1]); string(f.Data) != leadsCSV || ls.hits.Load() != 1 {
		t.Errorf("Got(second turn's file) = %+v after %d downloads; want the copy, downloaded once", f, ls.hits.Load())
	}
}

func TestLinkNotAllowedIsNeverFetched(t *testing.T) {
	ls := newLinkServer(t)
	for _, links := range []*fetch.Client{nil, mustFetch(t, fetch.Options{AllowHosts: []string{"files.example.com"}})} {
		model := keeltest.NewModel(keelReply{Text: "no file"})
		a := newAgent(t, agent.Config{Model: model, Links: links})
		res, err := a.Generate(context.Background(), []keel.Message{linkMsg(ls.URL+"/leads.csv", "text/csv")})
		if err != nil {
			t.Fatal(err)
		}
		text := promptText(model.Prompts()[0])
		if _, ok := sentFile(model.Prompts()[0]); ok || !strings.Contains(text, "[File not downloaded]\nname: leads.csv\nreason: The host \"127.0.0.1\" is not on the list") {
			t.Errorf("Got(prompt) = %q; want the note saying the host is not allowed", text)
		}
		if len(res.Recoveries) != 1 || res.Recoveries[0].Action != processor.OutcomeNotDownloaded {
			t.Errorf("Got(recoveries) = %+v; want the link left out", res.Recoveries)
		}
	}
	if n := ls.hits.Load(); n != 0 {
		t.Errorf("Got(requests to the host) = %d; want 0", n)
	}
}

func mustFetch(t *testing.T, opts fetch.Options) *fetch.Client {
	c, err := fetch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLinkDiesBetweenTurns checks an expired link: the turn answers with
// the note, the failure is kept on the stored message, and the turn after
// does not fetch it again.
func TestLinkDiesBetweenTurns(t *testing.T) {
	ls := newLinkServer(t)
	store := memory.NewInMemory()
	model := keeltest.NewModel(keelReply{Text: "ok"})
	model.RepeatLast = true
	a := newAgent(t, agent.Config{Model: model, Links: localLinks(t), Memory: store})
	opts := []agent.RunOption{agent.WithThread("t"), agent.WithResource("u")}
	link := ls.URL + "/leads.csv?sig=secret"
	if _, err := a.Generate(context.Background(), []keel.Message{linkMsg(link, "text/csv")}, opts...); err != nil {
		t.Fatal(err)
	}
	ls.gone.Store(true)
	res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("and now?")}, opts...)
	if err != nil || res.Text != "ok" {
		t.Fatalf("Got(second turn) = %v; want an answer", err)
	}
	text := promptText(model.Prompts()[1])
	if !strings.Contains(text, "reason: The server answered 404 Not Found; the link has probably expired.") || strings.Contains(text, "secret") {
		t.Errorf("Got(second prompt) = %q; want the expired link's note, without the signature", text)
	}
	page, _ := store.ListMessages(context.Background(), "u", "t", memory.ListMessagesOptions{})
	if _, ok := page.Messages[0].Metadata[processor.MetadataLinkFailures].(map[string]any)[link]; !ok {
		t.Errorf("Got(stored metadata) = %v; want the failure kept", page.Messages[0].Metadata)
	}
	hits := ls.hits.Load()
	if _, err := a.Generate(context.Background(), []keel.Message{keel.UserText("third")}, opts...); err != nil {
		t.Fatal(err)
	}
	if ls.hits.Load() != hits || !strings.Contains(promptText(model.Prompts()[2]), "probably expired") {
		t.Errorf("Got(third turn) = %d more downloads; want none, the note again", ls.hits.Load()-hits)
	}
}

// fetchingModel is a scripted model whose provider fetches every link.
type fetchingModel struct{ *keeltest.Model }

func (fetchingModel) FetchesLink(keel.FilePart) bool { return true }

func TestLinkFetchedByTheProviderIsSentAsIs(t *testing.T) {
	ls := newLinkServer(t)
	model := fetchingModel{keeltest.NewModel(keelReply{Text: "seen"})}
	a := newAgent(t, agent.Config{Model: model, Links: localLinks(t)})
	if _, err := a.Generate(context.Background(), []keel.Message{linkMsg(ls.URL+"/leads.csv", "text/csv")}); err != nil {
		t.Fatal(err)
	}
	if f, _ := sentFile(model.Prompts()[0]); f.URL != ls.URL+"/leads.csv" || ls.hits.Load() != 0 {
		t.Errorf("Got(file sent) = %+v after %d downloads; want the link itself", f, ls.hits.Load())
	}
}

// TestLinkDownloadMeetsTheFileHandler checks that a downloaded file is a
// file like any other: the model refuses the sheet, the handler takes it
// out, and the retry does not download it again.
func TestLinkDownloadMeetsTheFileHandler(t *testing.T) {
	ls := newLinkServer(t)
	model := refusingModel("ok")
	a := newAgent(t, agent.Config{Model: model, Links: localLinks(t), ErrorProcessors: []processor.Processor{fastRetry()}})
	res, err := a.Generate(context.Background(), []keel.Message{linkMsg(ls.URL+"/leads.xlsx", xlsxType)})
	if err != nil || model.Calls() != 2 {
		t.Fatalf("Got(run) = %v after %d calls; want the handler's retry", err, model.Calls())
	}
	if !strings.Contains(promptText(model.Prompts()[1]), "[Attachment unavailable: leads.xlsx]") || ls.hits.Load() != 1 {
		t.Errorf("Got(retry prompt) = %q after %d downloads; want the handler's placeholder, one download", promptText(model.Prompts()[1]), ls.hits.Load())
	}
	if len(res.Recoveries) == 0 || res.Recoveries[0].Processor != processor.UnsupportedFileHandlerID {
		t.Errorf("Got(recoveries) = %+v; want the handler's", res.Recoveries)
	}
}
