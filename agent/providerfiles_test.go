package agent_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/anthropic"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/openai"
	"github.com/keel-go/keel/provider/providertest"
)

// The answers of the model calls of the OpenAI and Anthropic servers.
const (
	chatAnswer      = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Read it."},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`
	anthropicAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Read it."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}`
)

// bigPDF is a 25 MB PDF: over Gemini's 20 MB of inline data per request,
// and, as base64, over the 32 MB OpenAI and Anthropic take.
var bigPDF = sync.OnceValue(func() []byte {
	b := bytes.Repeat([]byte("0123456789 stream of a large scanned report\n"), 25_000_000/44+1)
	copy(b, "%PDF-1.7\n")
	return b[:25_000_000]
})

// filesServer is a local server speaking a provider's Files API and its
// model calls, as the provider does.
type filesServer interface {
	// uploads counts the files the Files API received.
	uploads() int
	// calls returns the bodies of the model calls, in order.
	calls() []string
	// forget makes the provider forget the file ref names, as its expiry
	// or a deletion does.
	forget(ref string) bool
}

// geminiFiles is googletest's server with Gemini's real payload limit.
type geminiFiles struct{ *googletest.Server }

func (g geminiFiles) uploads() int { return len(g.Uploads()) }

func (g geminiFiles) calls() []string {
	var out []string
	for _, r := range g.Requests() {
		if strings.HasPrefix(r.Path, "/v1beta/models/") {
			out = append(out, string(r.Body))
		}
	}
	return out
}

func (g geminiFiles) forget(ref string) bool { return g.DeleteFile(ref) }

// multipartFiles speaks OpenAI's or Anthropic's POST /v1/files (a
// multipart upload) and answers a model call naming a file it does not
// keep with the provider's real 404.
type multipartFiles struct {
	*providertest.Server
	mu    sync.Mutex
	files map[string]bool // kept, by ID
	ups   int
}

var fileIDs = regexp.MustCompile(`"file_id":"([^"]+)"`)

func newMultipartFiles(t testing.TB, anthropicAPI bool, ttl time.Duration) *multipartFiles {
	s := &multipartFiles{files: map[string]bool{}}
	s.Server = providertest.NewServerFunc(t, func(r providertest.Recorded, n int) providertest.Reply {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.Path == "/v1/files" {
			up, err := providertest.ParseUpload(r)
			if err != nil {
				return providertest.Reply{Status: 400, Body: `{"error":{"message":"` + err.Error() + `","type":"invalid_request_error","param":null,"code":null}}`}
			}
			s.ups++
			now := time.Now()
			if anthropicAPI {
				id := "file_011CN" + strconv.Itoa(s.ups)
				s.files[id] = true
				return providertest.Reply{Body: providertest.AnthropicFileBody(id, up, now)}
			}
			id := "file-" + strconv.Itoa(s.ups)
			s.files[id] = true
			secs, _ := strconv.ParseInt(up.Fields["expires_after[seconds]"], 10, 64)
			exp := now.Unix() + secs
			if ttl > 0 {
				exp = now.Add(ttl).Unix()
			}
			return providertest.Reply{Body: providertest.OpenAIFileBody(id, up, now, exp)}
		}
		for _, m := range fileIDs.FindAllStringSubmatch(string(r.Body), -1) {
			if !s.files[m[1]] {
				if anthropicAPI {
					return providertest.Reply{Status: 404, Body: providertest.AnthropicFileGoneBody(m[1])}
				}
				return providertest.Reply{Status: 404, Body: providertest.OpenAIFileGoneBody(m[1])}
			}
		}
		if anthropicAPI {
			return providertest.Reply{Body: anthropicAnswer}
		}
		return providertest.Reply{Body: chatAnswer}
	})
	return s
}

func (s *multipartFiles) uploads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ups
}

func (s *multipartFiles) calls() []string {
	var out []string
	for _, r := range s.Requests() {
		if r.Path != "/v1/files" {
			out = append(out, string(r.Body))
		}
	}
	return out
}

func (s *multipartFiles) forget(ref string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok := s.files[ref]
	delete(s.files, ref)
	return ok
}

// fileProvider is a provider with a Files API, on a local server whose
// files live ttl (0: the provider's own lifetime).
type fileProvider struct {
	name string
	// start returns the model and its server; ttl is ignored by a
	// provider that sets no expiry (Anthropic).
	start func(t testing.TB, ttl time.Duration) (keel.Model, filesServer)
	// ref matches the reference a model call names the file by.
	ref *regexp.Regexp
	// expires reports whether the provider says when a file expires.
	expires bool
}

var fileProviders = []fileProvider{
	{"gemini", func(t testing.TB, ttl time.Duration) (keel.Model, filesServer) {
		srv := googletest.NewServer(t, googletest.Options{PayloadLimit: 20971520, FileTTL: ttl})
		m, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: srv.URL()})
		if err != nil {
			t.Fatal(err)
		}
		return m, geminiFiles{srv}
	}, regexp.MustCompile(`"fileData":\{[^}]*"fileUri":"(http://[^"]+/v1beta/files/[^"]+)"`), true},
	{"openai", func(t testing.TB, ttl time.Duration) (keel.Model, filesServer) {
		srv := newMultipartFiles(t, false, ttl)
		m, err := openai.New("gpt-4o-mini", openai.Options{APIKey: "k", BaseURL: srv.URL() + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		return m, srv
	}, regexp.MustCompile(`\{"file":\{"file_id":"(file-\d+)"\},"type":"file"\}`), true},
	{"anthropic", func(t testing.TB, _ time.Duration) (keel.Model, filesServer) {
		srv := newMultipartFiles(t, true, 0)
		m, err := anthropic.New("claude-sonnet-4-5", anthropic.Options{APIKey: "k", BaseURL: srv.URL()})
		if err != nil {
			t.Fatal(err)
		}
		return m, srv
	}, regexp.MustCompile(`"source":\{"file_id":"(file_011CN\d+)","type":"file"\}`), false},
}

// providerFilesAgent is an agent on model whose threads and provider file
// references are kept in store.
func providerFilesAgent(t testing.TB, model keel.Model, store *memory.InMemory) *agent.Agent {
	t.Helper()
	a, err := agent.New(agent.Config{ID: "assistant", Model: model, Memory: store, Logger: slog.New(slog.DiscardHandler),
		Files: processor.UnsupportedFileOptions{ProviderFiles: store, BlameReadableFiles: true}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// refOf returns the reference the model call names the file by, and
// fails when the call carries the file inline.
func (p fileProvider) refOf(t *testing.T, turn int, body string) string {
	t.Helper()
	if len(body) > 1<<20 {
		t.Fatalf("Got(turn %d's call) = %d bytes; want the PDF by reference, not inline", turn, len(body))
	}
	m := p.ref.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("Got(turn %d's call) = %.600s; want the PDF named by reference", turn, body)
	}
	return m[1]
}

// TestProviderFilesAcrossTurns sends a 25 MB PDF to each provider with a
// Files API: the first turn uploads it and makes one model call; later
// turns, and another thread, name it by the same reference in one call,
// without uploading it again; once the provider forgets it (its real
// answer for a file gone), the file is uploaded again and the call tried
// once more.
func TestProviderFilesAcrossTurns(t *testing.T) {
	for _, p := range fileProviders {
		t.Run(p.name, func(t *testing.T) {
			model, srv := p.start(t, 0)
			store := memory.NewInMemory()
			a := providerFilesAgent(t, model, store)
			file := keel.FilePart{Data: bigPDF(), MediaType: "application/pdf", Filename: "report.pdf"}
			turns := []struct {
				thread string
				msg    keel.Message
				calls  int
			}{
				{"t1", userMsg(keel.TextPart{Text: "Summarise"}, file), 1},
				{"t1", keel.UserText("And the costs?"), 1},
				{"t1", keel.UserText("And the risks?"), 1},
				{"t2", userMsg(keel.TextPart{Text: "Summarise"}, file), 1},
			}
			var ref string
			total := 0
			for i, turn := range turns {
				res, err := a.Generate(context.Background(), []keel.Message{turn.msg}, agent.WithThread(turn.thread), agent.WithResource("u"))
				if err != nil {
					t.Fatalf("turn %d: %v", i+1, err)
				}
				total += turn.calls
				calls := srv.calls()
				if len(calls) != total || res.Steps[0].Attempts != turn.calls || srv.uploads() != 1 {
					t.Fatalf("Got(turn %d) = %d calls in all, %d attempts, %d uploads; want %d, %d, 1",
						i+1, len(calls), res.Steps[0].Attempts, srv.uploads(), total, turn.calls)
				}
				got := p.refOf(t, i+1, calls[total-1])
				if ref == "" {
					ref = got
				}
				if got != ref {
					t.Errorf("Got(turn %d's reference) = %s; want %s, the first upload's", i+1, got, ref)
				}
				if len(res.Recoveries) != 1 || res.Recoveries[0].Action != processor.OutcomeProviderFile ||
					res.Recoveries[0].Files[0].Ref != ref || res.Recoveries[0].Cause.Kind != processor.CauseInlineLimit {
					t.Errorf("Got(turn %d's recoveries) = %+v; want report.pdf by reference %s, for the inline limit", i+1, res.Recoveries, ref)
				}
			}
			// Stored messages keep the file itself, never the reference.
			msgs, err := store.ListMessages(context.Background(), "u", "t1", memory.ListMessagesOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := msgs.Messages[0].Parts[1].(keel.FilePart); !ok || len(f.Data) != len(bigPDF()) {
				t.Errorf("Got(the stored first message) = %+v; want the PDF's bytes", msgs.Messages[0].Parts)
			}

			if !srv.forget(ref) {
				t.Fatalf("the server did not keep %s", ref)
			}
			res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("Once more")}, agent.WithThread("t1"), agent.WithResource("u"))
			if err != nil {
				t.Fatalf("turn after the file was forgotten: %v", err)
			}
			calls := srv.calls()
			if res.Steps[0].Attempts != 2 || len(calls) != total+2 || srv.uploads() != 2 {
				t.Fatalf("Got(turn after the file was forgotten) = %d attempts, %d calls in all, %d uploads; want 2, %d, 2",
					res.Steps[0].Attempts, len(calls), srv.uploads(), total+2)
			}
			if again := p.refOf(t, len(turns)+1, calls[len(calls)-1]); again == ref {
				t.Errorf("Got(retry's reference) = %s; want the new upload's", again)
			}
		})
	}
}

// TestProviderFilesExpire checks a reference the provider said expires:
// the first turn after its expiry uploads the file again before its one
// call, instead of sending a reference the provider would refuse.
func TestProviderFilesExpire(t *testing.T) {
	for _, p := range fileProviders {
		if !p.expires {
			continue // Anthropic keeps files until they are deleted: see TestProviderFilesAcrossTurns
		}
		t.Run(p.name, func(t *testing.T) {
			const ttl = 2 * time.Second
			model, srv := p.start(t, ttl)
			store := memory.NewInMemory()
			a := providerFilesAgent(t, model, store)
			file := keel.FilePart{Data: bigPDF(), MediaType: "application/pdf", Filename: "report.pdf"}
			if _, err := a.Generate(context.Background(), []keel.Message{userMsg(keel.TextPart{Text: "Summarise"}, file)},
				agent.WithThread("t1"), agent.WithResource("u")); err != nil {
				t.Fatal(err)
			}
			first := p.refOf(t, 1, srv.calls()[0])
			time.Sleep(ttl + 1100*time.Millisecond) // OpenAI's expires_at is in whole seconds
			res, err := a.Generate(context.Background(), []keel.Message{keel.UserText("Again")}, agent.WithThread("t1"), agent.WithResource("u"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Steps[0].Attempts != 1 || srv.uploads() != 2 || len(srv.calls()) != 2 {
				t.Fatalf("Got(turn after expiry) = %d attempts, %d uploads, %d calls; want 1, 2, 2", res.Steps[0].Attempts, srv.uploads(), len(srv.calls()))
			}
			if second := p.refOf(t, 2, srv.calls()[1]); second == first {
				t.Errorf("Got(reference after expiry) = %s; want a new one", second)
			}
		})
	}
}

// TestProviderFilesSizeRefusal checks a file under the provider's declared
// limit that Gemini refuses for the request's size (its real 400): the
// retry sends it by reference, and later turns name it at once.
func TestProviderFilesSizeRefusal(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{PayloadLimit: 1 << 20})
	model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.NewInMemory()
	rr, err := processor.NewRememberedRefusals(store, processor.RefusalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{ID: "assistant", Model: model, Memory: store, Logger: slog.New(slog.DiscardHandler),
		Files: processor.UnsupportedFileOptions{ProviderFiles: store, Refusals: rr, BlameReadableFiles: true}})
	if err != nil {
		t.Fatal(err)
	}
	g := geminiFiles{srv}
	pdf := keel.FilePart{Data: bigPDF()[:2<<20], MediaType: "application/pdf", Filename: "scan.pdf"}
	res, err := a.Generate(context.Background(), []keel.Message{userMsg(keel.TextPart{Text: "Read"}, pdf)}, agent.WithThread("t1"), agent.WithResource("u"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps[0].Attempts != 2 || g.uploads() != 1 || len(res.Recoveries) != 1 || res.Recoveries[0].Action != processor.OutcomeProviderFile ||
		res.Recoveries[0].Cause.Status != 400 || !strings.Contains(res.Recoveries[0].Cause.Message, "20971520") {
		t.Fatalf("Got(turn 1) = %d attempts, %d uploads, recoveries %+v; want 2, 1, the file by reference for Gemini's 400",
			res.Steps[0].Attempts, g.uploads(), res.Recoveries)
	}
	for turn := 2; turn <= 3; turn++ {
		res, err := a.Generate(context.Background(), []keel.Message{keel.UserText(fmt.Sprint("Turn ", turn))}, agent.WithThread("t1"), agent.WithResource("u"))
		if err != nil {
			t.Fatal(err)
		}
		calls := g.calls()
		if res.Steps[0].Attempts != 1 || g.uploads() != 1 || !strings.Contains(calls[len(calls)-1], `"fileUri"`) {
			t.Errorf("Got(turn %d) = %d attempts, %d uploads; want 1 call naming the file, no upload", turn, res.Steps[0].Attempts, g.uploads())
		}
	}
}

// TestProviderFilesWithoutFileStore checks an OpenAI-compatible server
// (vLLM, here, with its real refusal of a file part): it has no file
// store, so nothing is uploaded and the PDF is handled as refused.
func TestProviderFilesWithoutFileStore(t *testing.T) {
	srv := providertest.NewServerFunc(t, func(r providertest.Recorded, _ int) providertest.Reply {
		if strings.Contains(string(r.Body), `"type":"file"`) {
			return providertest.VLLMFilePart.Reply
		}
		return providertest.Reply{Body: chatAnswer}
	})
	model, err := openai.New("m", openai.Options{ProviderName: "openai-compatible", BaseURL: srv.URL() + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if keel.FileStoreOf(model) != nil {
		t.Fatalf("Got(an OpenAI-compatible server's file store) = non-nil; want none")
	}
	store := memory.NewInMemory()
	a := providerFilesAgent(t, model, store)
	file := keel.FilePart{Data: bigPDF(), MediaType: "application/pdf", Filename: "report.pdf"}
	res, err := a.Generate(context.Background(), []keel.Message{userMsg(keel.TextPart{Text: "Summarise"}, file)}, agent.WithThread("t1"), agent.WithResource("u"))
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for _, r := range reqs {
		if strings.Contains(r.Path, "files") {
			t.Errorf("Got(a request to %s); want no upload to a server without a Files API", r.Path)
		}
	}
	if res.Steps[0].Attempts != 2 || len(reqs) != 2 || strings.Contains(string(reqs[1].Body), `"type":"file"`) ||
		!strings.Contains(string(reqs[1].Body), "[Attachment unavailable: report.pdf]") {
		t.Errorf("Got(turn) = %d attempts, %d requests, last %.300s; want 2, the file handled as refused", res.Steps[0].Attempts, len(reqs), reqs[len(reqs)-1].Body)
	}
}

// TestProviderFilesCancelledUpload cancels a turn while Gemini receives
// the PDF: the turn ends with the context's error, no reference is
// stored, no model call made; the next turn uploads it whole.
func TestProviderFilesCancelledUpload(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	srv := googletest.NewServer(t, googletest.Options{PayloadLimit: 20971520, Respond: func(r googletest.Request, _ int) (providertest.Reply, bool) {
		if r.Query != "" && strings.Contains(r.Query, "upload_id") && r.Header.Get("X-Goog-Upload-Command") != "" {
			stalled := false
			once.Do(func() { stalled = true; cancel() })
			if stalled {
				// The bytes arrived; the answer never comes before the
				// client goes away.
				return providertest.Reply{Delay: 30 * time.Second}, true
			}
		}
		return providertest.Reply{}, false
	}})
	model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.NewInMemory()
	a := providerFilesAgent(t, model, store)
	file := keel.FilePart{Data: bigPDF(), MediaType: "application/pdf", Filename: "report.pdf"}
	msg := userMsg(keel.TextPart{Text: "Summarise"}, file)
	_, err = a.Generate(ctx, []keel.Message{msg}, agent.WithThread("t1"), agent.WithResource("u"))
	if err == nil || ctx.Err() == nil {
		t.Fatalf("Got(a turn cancelled mid-upload) = %v; want the context's error", err)
	}
	g := geminiFiles{srv}
	if n := len(g.calls()); n != 0 {
		t.Errorf("Got(after the cancelled turn) = %d model calls; want none", n)
	}
	scope := keel.FileStoreOf(model).FileScope()
	if _, ok, _ := store.ProviderFile(context.Background(), scope, digestOf(bigPDF())); ok {
		t.Errorf("Got(a reference stored) after the cancelled upload; want none")
	}
	res, err := a.Generate(context.Background(), []keel.Message{msg}, agent.WithThread("t2"), agent.WithResource("u"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps[0].Attempts != 1 || g.uploads() != 1 || g.Uploads()[0].Size != int64(len(bigPDF())) {
		t.Errorf("Got(next turn) = %d attempts, %d uploads; want 1 call after the whole file's upload", res.Steps[0].Attempts, g.uploads())
	}
	if _, ok, _ := store.ProviderFile(context.Background(), scope, digestOf(bigPDF())); !ok {
		t.Errorf("Got(no reference stored) after the next turn's upload; want it")
	}
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
