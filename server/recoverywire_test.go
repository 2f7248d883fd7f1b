package server_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/processor"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/server"
)

// saidRecovery is a recovery as the server sends it: its fields, and the
// words it adds.
type saidRecovery struct {
	processor.Recovery
	By, Why string
	// Files shadows the embedded Files: the tag makes the names equal.
	Files []struct {
		processor.RecoveredFile
		Got string
	} `json:"files"`
}

// checkSaid fails unless rec carries the words the describer gives the
// same recovery: the handler's placeholder for leads.xlsx after google's
// 400.
func checkSaid(t *testing.T, where string, rec saidRecovery) {
	t.Helper()
	plain := rec.Recovery
	plain.Files = nil
	for _, f := range rec.Files {
		plain.Files = append(plain.Files, f.RecoveredFile)
	}
	d := plain.Describe()
	if len(rec.Files) != 1 || rec.Files[0].Name != "leads.xlsx" || rec.By != "Unsupported File Handler" || rec.By != d.By ||
		rec.Why != d.Why || !strings.HasPrefix(rec.Why, "google answered 400 ") || rec.Files[0].Got != d.Files[0].Got ||
		rec.Files[0].Got != "replaced by a placeholder" {
		t.Errorf("Got(%s recovery) = %+v; want leads.xlsx's placeholder after google's 400, in the words of %+v", where, rec, d)
	}
}

// Wherever the server sends a recovery (the stream's event and finish,
// the generate answer, a stored turn's metadata), it sends the
// describer's words with it, so that a client words none itself.
func TestRecoveriesAreSentWithTheirWords(t *testing.T) {
	model, _ := geminiModel(t, googletest.Options{Unsupported: []string{xlsx}, Text: "Fine."})
	mem, err := sqlitestore.Open(t.TempDir() + "/keel.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	e := newEnv(t, envOptions{model: model, mem: mem})
	data := base64.StdEncoding.EncodeToString([]byte("PK\x03\x04fake"))
	body := func(thread string) string {
		return `{"memory":{"thread":"` + thread + `","resource":"r"},"messages":[{"role":"user","content":[` +
			`{"type":"text","text":"read"},{"type":"file","data":"` + data + `","mediaType":"` + xlsx + `","filename":"leads.xlsx"}]}]}`
	}

	resp := e.send("POST", "/api/agents/support/stream", body("t-stream"))
	events, _ := parseSSE(t, must(io.ReadAll(resp.Body)))
	resp.Body.Close()
	var live, finished int
	for _, ev := range events {
		switch ev.Type {
		case server.EventRecovery:
			live++
			checkSaid(t, "stream event", payload[saidRecovery](t, ev))
		case "finish":
			for _, rec := range payload[struct{ Recoveries []saidRecovery }](t, ev).Recoveries {
				finished++
				checkSaid(t, "stream finish", rec)
			}
		}
	}
	if live != 1 || finished != 1 {
		t.Errorf("Got(recoveries streamed) = %d events, %d in the finish; want 1 and 1", live, finished)
	}

	status, out := e.do("POST", "/api/agents/support/generate", body("t-generate"))
	var gen struct{ Recoveries []saidRecovery }
	if err := json.Unmarshal(out, &gen); status != 200 || err != nil || len(gen.Recoveries) != 1 {
		t.Fatalf("Got(generate) = %d %s (%v); want 200 with one recovery", status, out, err)
	}
	checkSaid(t, "generate", gen.Recoveries[0])

	for _, thread := range []string{"t-stream", "t-generate"} {
		status, out := e.do("GET", "/api/memory/threads/"+thread+"/messages?resourceId=r", nil)
		var page struct {
			Messages []struct {
				Content struct{ Metadata map[string]json.RawMessage }
			}
		}
		if err := json.Unmarshal(out, &page); status != 200 || err != nil {
			t.Fatalf("Got(messages of %s) = %d %s (%v); want 200", thread, status, out, err)
		}
		stored := 0
		for _, m := range page.Messages {
			if raw, ok := m.Content.Metadata[agent.MetadataRecoveries]; ok {
				var recs []saidRecovery
				if err := json.Unmarshal(raw, &recs); err != nil || len(recs) != 1 {
					t.Fatalf("Got(stored recoveries of %s) = %s (%v); want one", thread, raw, err)
				}
				stored++
				checkSaid(t, "stored in "+thread, recs[0])
			}
		}
		if stored != 1 {
			t.Errorf("Got(messages of %s with recoveries) = %d; want 1", thread, stored)
		}
	}
}
