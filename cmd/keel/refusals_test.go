package main_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

const docxType = officetest.DOCXType

// leads is the workbook the tests send: its cells are what the model
// must be given.
func leads(t *testing.T) []byte {
	return officetest.Workbook(t, "Leads", [][]any{{"Name", "City"}, {"Ada", "Berlin"}, {"Grace", "Paris"}})
}

const leadsCSV = "Name,City\nAda,Berlin\nGrace,Paris"

// turnJSON is keel run --json's output, with what these tests read.
type turnJSON struct {
	Text     string `json:"text"`
	ThreadID string `json:"threadId"`
	Calls    int    `json:"calls"`
	// RefusedBeforeSending counts the calls an SDK refused locally.
	RefusedBeforeSending int `json:"refusedBeforeSending"`
	Recoveries           []struct {
		Action string `json:"action"`
		Files  []struct {
			Name, MediaType, Path, Outcome string
		} `json:"files"`
		Cause *struct {
			Kind, MediaType, Message string
			Status                   int
			LearnedAt                time.Time
		} `json:"cause"`
	} `json:"recoveries"`
}

// refusalJSON is an entry of keel refusals list --json.
type refusalJSON struct {
	Provider, Model, MediaType, Reason string
	Status                             int
	Expired                            bool
	LearnedAt                          time.Time
}

// requestTexts returns the user texts of the model server's n-th request.
func requestTexts(t *testing.T, srv *googletest.Server, n int) (string, []string) {
	t.Helper()
	body, err := srv.Requests()[n].Decode()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(body.UserTexts(), "\n"), body.InlineMediaTypes()
}

// TestRunRemembersRefusedFiles follows a thread on a model that answers
// office files with Gemini's 502: the first turn learns, every later turn
// and thread is one call, and the model always gets the file's text.
func TestRunRemembersRefusedFiles(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Internal: []string{xlsxType, docxType}})
	dir := t.TempDir()
	book := leads(t)
	writeFile(t, filepath.Join(dir, "leads.xlsx"), book)
	writeFile(t, filepath.Join(dir, "memo.docx"), officetest.Document(t, "Memo", []string{"Prices rise in May."},
		[][]string{{"Item", "Qty"}, {"Pens", "3"}}))
	db := filepath.Join(dir, "k.db")
	run := func(args ...string) turnJSON {
		t.Helper()
		res := mustKeel(t, dir, geminiEnv(srv), append([]string{"run", "--json", "--db", db, "--sandbox", filepath.Join(dir, "sb")}, args...)...)
		return decode[turnJSON](t, "run output", res.stdout)
	}
	wantCalls := func(step string, out turnJSON, calls, total int) {
		t.Helper()
		if out.Calls != calls || len(srv.Requests()) != total {
			t.Fatalf("Got(%s) = %d calls, %d requests in all; want %d calls, %d in all", step, out.Calls, len(srv.Requests()), calls, total)
		}
	}

	// Turn 1: refused, then the sandbox's note and the sheet's cells.
	out := run("--new-thread", "t1", "--file", "leads.xlsx", "How many leads are from Berlin?")
	wantCalls("turn 1", out, 2, 2)
	if _, mts := requestTexts(t, srv, 0); len(mts) != 1 || mts[0] != xlsxType {
		t.Errorf("Got(first request's files) = %q; want the xlsx, sent as it is", mts)
	}
	texts, mts := requestTexts(t, srv, 1)
	if len(mts) != 0 || !strings.Contains(texts, "[File uploaded to the sandbox]\npath: /home/user/uploads/t1/") ||
		!strings.Contains(texts, `[Text of leads.xlsx — sheet "Leads", 3 rows × 2 columns, as CSV]`) || !strings.Contains(texts, leadsCSV) ||
		strings.Index(texts, "[File uploaded") > strings.Index(texts, "[Text of") {
		t.Fatalf("Got(second request) = %q, files %q; want the note, then the sheet as CSV, no file", texts, mts)
	}
	if len(out.Recoveries) != 1 || out.Recoveries[0].Action != "converted" || out.Recoveries[0].Files[0].Path == "" {
		t.Errorf("Got(turn 1 recoveries) = %+v; want leads.xlsx converted, and uploaded", out.Recoveries)
	}

	// Turns 2 and 3: one call each; the xlsx in the thread is never sent.
	for turn := 2; turn <= 3; turn++ {
		out = run("--thread", "t1", fmt.Sprintf("Question %d: and from Paris?", turn))
		wantCalls(fmt.Sprintf("turn %d", turn), out, 1, turn+1)
		texts, mts = requestTexts(t, srv, turn)
		if len(mts) != 0 || !strings.Contains(texts, leadsCSV) {
			t.Errorf("Got(turn %d request) = %q, files %q; want the sheet's text and no file", turn, texts, mts)
		}
		if len(out.Recoveries) != 1 || out.Recoveries[0].Cause == nil || out.Recoveries[0].Cause.Kind != "remembered-refusal" ||
			out.Recoveries[0].Cause.Status != 502 || out.Recoveries[0].Cause.LearnedAt.IsZero() {
			t.Errorf("Got(turn %d recoveries) = %+v; want the remembered 502 as the cause", turn, out.Recoveries)
		}
	}

	// A new thread, the same model and file: one call.
	out = run("--new-thread", "t2", "--file", "leads.xlsx", "Summarise")
	wantCalls("new thread", out, 1, 5)

	// A docx refused the same way: its heading, paragraphs and table.
	out = run("--new-thread", "t3", "--file", "memo.docx", "What does the memo say?")
	wantCalls("docx", out, 2, 7)
	texts, _ = requestTexts(t, srv, 6)
	for _, w := range []string{"[Text of memo.docx — 2 paragraphs, 1 table, as Markdown]", "# Memo", "Prices rise in May.", "| Item | Qty |", "| Pens | 3 |"} {
		if !strings.Contains(texts, w) {
			t.Errorf("Got(docx request) = %q; want it to hold %q", texts, w)
		}
	}

	// What was learned, listed and forgotten.
	list := decode[[]refusalJSON](t, "refusals list", mustKeel(t, dir, env(), "refusals", "list", "--json", "--db", db).stdout)
	if len(list) != 2 || list[0].MediaType != xlsxType || list[1].MediaType != docxType || list[0].Provider != "google" ||
		list[0].Model != "gemini-2.5-flash" || list[0].Status != 502 || list[0].Expired || !strings.Contains(list[0].Reason, "internal error") {
		t.Fatalf("Got(refusals list) = %+v; want the xlsx and the docx, 502, unexpired", list)
	}
	table := mustKeel(t, dir, env(), "refusals", "list", "--db", db).stdout
	if !strings.Contains(table, "google/gemini-2.5-flash") || !strings.Contains(table, xlsxType) || !strings.Contains(table, "502 An internal error") {
		t.Errorf("Got(refusals list) = %q; want a table of both", table)
	}
	forgot := mustKeel(t, dir, env(), "refusals", "forget", "google/gemini-2.5-flash", xlsxType, "--db", db)
	if !strings.HasPrefix(forgot.stdout, "forgot 1 remembered refusal") {
		t.Errorf("Got(forget) = %q; want 1 forgotten", forgot.stdout)
	}
	out = run("--new-thread", "t4", "--file", "leads.xlsx", "Again")
	wantCalls("after forget", out, 2, 9)
}

// TestRunRefusalsSDKs checks the same through OpenAI's and Anthropic's
// adapters, whose SDK-side refusals name the type: the first turn's
// refused call sends nothing, and later turns handle the file first.
func TestRunRefusalsSDKs(t *testing.T) {
	tests := []struct {
		name, model, body string
		env               func(url string) []string
	}{
		{"openai", "openai/gpt-4o-mini",
			`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Two leads."},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
			func(url string) []string { return []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + url + "/v1"} }},
		{"anthropic", "anthropic/claude-sonnet-4-5",
			`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Two leads."}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}`,
			func(url string) []string { return []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + url} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.NewServer(t, providertest.Reply{Body: tt.body})
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "leads.xlsx"), leads(t))
			environ := env(append(tt.env(srv.URL()), "KEEL_MODEL="+tt.model)...)
			db := filepath.Join(dir, "k.db")
			turn := func(args ...string) turnJSON {
				t.Helper()
				res := mustKeel(t, dir, environ, append([]string{"run", "--json", "--db", db, "--sandbox", filepath.Join(dir, "sb")}, args...)...)
				return decode[turnJSON](t, "run output", res.stdout)
			}
			out := turn("--new-thread", "t1", "--file", "leads.xlsx", "Count the leads")
			reqs := srv.Requests()
			sent := func(i int) bool {
				b := string(reqs[i].Body)
				return strings.Contains(b, "data:"+xlsxType) || strings.Contains(b, `"media_type":"`+xlsxType)
			}
			// calls counts what reached the provider; the SDK's refusal
			// is counted apart.
			if out.Calls != 1 || out.RefusedBeforeSending != 1 || len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `Name,City\nAda,Berlin`) || sent(0) {
				t.Fatalf("Got(turn 1) = %d calls, %d refused before sending, %d requests; want 1 call, 1 refused by the SDK, 1 request with the CSV",
					out.Calls, out.RefusedBeforeSending, len(reqs))
			}
			if c := out.Recoveries[0].Cause; c == nil || c.Kind != "unsupported-functionality" || c.MediaType != xlsxType {
				t.Errorf("Got(turn 1 cause) = %+v; want the SDK's refusal naming the xlsx", c)
			}
			out = turn("--thread", "t1", "And now?")
			reqs = srv.Requests()
			if out.Calls != 1 || out.RefusedBeforeSending != 0 || len(reqs) != 2 || sent(1) || !strings.Contains(string(reqs[1].Body), `Name,City\nAda,Berlin`) || out.Recoveries[0].Cause == nil || out.Recoveries[0].Cause.Kind != "remembered-refusal" {
				t.Errorf("Got(turn 2) = %+v with %d requests; want 1 call, the refusal remembered", out, len(srv.Requests()))
			}
			list := decode[[]refusalJSON](t, "refusals list", mustKeel(t, dir, env(), "refusals", "list", "--json", "--db", db).stdout)
			if len(list) != 1 || list[0].Status != 0 || !strings.HasPrefix(list[0].Reason, "refused by the SDK before sending") {
				t.Errorf("Got(refusals) = %+v; want the SDK's refusal, status 0", list)
			}
		})
	}
}

// TestRunRefusalExpiry checks that an expired entry lets the file go to
// the model again: refused again, it is learned anew; taken, it is gone.
func TestRunRefusalExpiry(t *testing.T) {
	var takes atomic.Bool
	srv := googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, _ int) (providertest.Reply, bool) {
		body, _ := r.Decode()
		if len(body.InlineMediaTypes()) > 0 && !takes.Load() {
			return providertest.Reply{Status: 502, Body: googletest.InternalBody(502)}, true
		}
		return providertest.Reply{}, false
	}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), leads(t))
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("refusals: {expiry: 1s}\nagents:\n  - id: assistant\n    tools: [read_file]\n"))
	db := filepath.Join(dir, "k.db")
	turn := func(thread string) turnJSON {
		t.Helper()
		res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--db", db, "--new-thread", thread, "--file", "leads.xlsx", "Count")
		return decode[turnJSON](t, "run output", res.stdout)
	}
	list := func() []refusalJSON {
		return decode[[]refusalJSON](t, "refusals list", mustKeel(t, dir, env(), "refusals", "list", "--json", "--db", db).stdout)
	}
	// waitExpired polls the ledger until its one entry has expired.
	waitExpired := func() refusalJSON {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; {
			l := list()
			if len(l) != 1 {
				t.Fatalf("Got(refusals) = %+v; want one entry", l)
			}
			if l[0].Expired {
				return l[0]
			}
			if time.Now().After(deadline) {
				t.Fatalf("Got(refusal) = %+v still unexpired after 30 s; want it expired after 1 s", l[0])
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if out := turn("t1"); out.Calls != 2 {
		t.Fatalf("Got(turn 1) = %d calls; want 2", out.Calls)
	}
	first := waitExpired()
	if out := turn("t2"); out.Calls != 2 {
		t.Errorf("Got(after expiry, still refused) = %d calls; want 2: the file sent again, refused again", out.Calls)
	}
	if l := list(); len(l) != 1 || !l[0].LearnedAt.After(first.LearnedAt) {
		t.Errorf("Got(refusals) = %+v; want the refusal learned anew after %v", l, first.LearnedAt)
	}
	waitExpired()
	takes.Store(true)
	out := turn("t3")
	if out.Calls != 1 || len(out.Recoveries) != 0 {
		t.Errorf("Got(after expiry, model takes the file) = %+v; want 1 call, nothing recovered", out)
	}
	if _, mts := requestTexts(t, srv, len(srv.Requests())-1); len(mts) != 1 {
		t.Errorf("Got(last request's files) = %q; want the xlsx sent", mts)
	}
	if l := list(); len(l) != 0 {
		t.Errorf("Got(refusals after the model took the file) = %+v; want none", l)
	}
}

// TestRunUnauthorizedWithFile checks that a bad key is never blamed on
// the file: one call, nothing uploaded, and a message to check the key.
func TestRunUnauthorizedWithFile(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Respond: func(googletest.Request, int) (providertest.Reply, bool) {
		return providertest.Reply{Status: 401, Body: googletest.ErrorBody(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")}, true
	}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), leads(t))
	sb := filepath.Join(dir, "sb")
	res := keel(t, dir, geminiEnv(srv), "run", "--db", filepath.Join(dir, "k.db"), "--sandbox", sb, "--file", "leads.xlsx", "Count")
	if res.code != 1 || !strings.Contains(res.stderr, "status 401") || !strings.Contains(res.stderr, "check the provider's API key") {
		t.Errorf("Got(keel run with a bad key) = exit %d, %q; want 1 and a message to check the key", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("Got(model calls) = %d; want 1", n)
	}
	var uploads []string
	filepath.WalkDir(sb, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(path, "uploads") {
			uploads = append(uploads, path)
		}
		return nil
	})
	if len(uploads) != 0 {
		t.Errorf("Got(uploads) = %q; want none", uploads)
	}
}

// TestServeSharesRefusals runs two keel serve processes on one PostgreSQL
// database: what one learns, the other uses on its first call, and the
// refusals route lists and forgets it.
func TestServeSharesRefusals(t *testing.T) {
	url := pgtest.Start(t)
	srv := googletest.NewServer(t, googletest.Options{Internal: []string{xlsxType}})
	dir := t.TempDir()
	const token = "s3cret"
	environ := geminiEnv(srv, "KEEL_API_TOKEN="+token)
	a := startServe(t, dir, environ, append([]string{"--db", url, "--sandbox", filepath.Join(dir, "sb-a")}, loopback...)...)
	b := startServe(t, dir, environ, append([]string{"--db", url, "--sandbox", filepath.Join(dir, "sb-b")}, loopback...)...)
	file := base64.StdEncoding.EncodeToString(leads(t))
	generate := func(s *served, thread string) turnJSON {
		t.Helper()
		body := `{"messages":[{"role":"user","content":[{"type":"text","text":"Count the leads"},{"type":"file","data":"data:` + xlsxType +
			`;base64,` + file + `","mediaType":"` + xlsxType + `","filename":"leads.xlsx"}]}],"memory":{"thread":"` + thread + `","resource":"u1"}}`
		code, resp := call(t, "POST", s.url+"/api/agents/assistant/generate", token, body)
		var out turnJSON
		if err := json.Unmarshal(resp, &out); code != 200 || err != nil {
			t.Fatalf("Got(generate on %s) = %d %s; want 200", s.url, code, resp)
		}
		return out
	}
	generate(a, "th-a")
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("Got(model calls of the first server) = %d; want 2", n)
	}
	out := generate(b, "th-b")
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("Got(model calls after the second server's turn) = %d; want 3: it knew the refusal", n)
	}
	if len(out.Recoveries) != 1 || out.Recoveries[0].Cause == nil || out.Recoveries[0].Cause.Kind != "remembered-refusal" {
		t.Errorf("Got(second server's recoveries) = %+v; want the remembered refusal", out.Recoveries)
	}

	if code, _ := call(t, "GET", b.url+"/api/keel/refusals", "", ""); code != 401 {
		t.Errorf("Got(GET refusals without the token) = %d; want 401", code)
	}
	code, resp := call(t, "GET", b.url+"/api/keel/refusals", token, "")
	var listed struct{ Refusals []refusalJSON }
	if err := json.Unmarshal(resp, &listed); code != 200 || err != nil || len(listed.Refusals) != 1 || listed.Refusals[0].MediaType != xlsxType {
		t.Fatalf("Got(GET refusals) = %d %s; want the xlsx's entry", code, resp)
	}
	code, resp = call(t, "DELETE", b.url+"/api/keel/refusals?provider=google&model=gemini-2.5-flash&mediaType="+xlsxType, token, "")
	if code != 200 || strings.TrimSpace(string(resp)) != `{"forgotten":1}` {
		t.Fatalf("Got(DELETE refusals) = %d %s; want 1 forgotten", code, resp)
	}
	generate(b, "th-b2")
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("Got(model calls after the forget) = %d; want 5: the server that forgot sends the file again at once", n)
	}
}

// TestRunConvertOff checks files.convert: false: the model gets the
// sandbox's note alone, as the reference framework has it.
func TestRunConvertOff(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Internal: []string{xlsxType}})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "leads.xlsx"), leads(t))
	writeFile(t, filepath.Join(dir, "keel.yaml"), []byte("files: {convert: false}\nagents:\n  - id: assistant\n    tools: [read_file]\n"))
	res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--db", filepath.Join(dir, "k.db"), "--file", "leads.xlsx", "Count")
	out := decode[turnJSON](t, "run output", res.stdout)
	texts, _ := requestTexts(t, srv, 1)
	if out.Calls != 2 || !strings.Contains(texts, "[File uploaded to the sandbox]") || strings.Contains(texts, "[Text of") || strings.Contains(texts, "Ada,Berlin") {
		t.Errorf("Got(conversion off) = %d calls, %q; want the note alone", out.Calls, texts)
	}
	if len(out.Recoveries) != 1 || out.Recoveries[0].Action != "uploaded" {
		t.Errorf("Got(recoveries) = %+v; want uploaded", out.Recoveries)
	}
}
