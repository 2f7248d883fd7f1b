package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/pgstore"
	"github.com/keel-go/keel/memory/sqlitestore"
)

// seedTurns stores turns question/answer pairs in resource r's thread id,
// one save per turn, as turns store them.
func seedTurns(t testing.TB, mem memory.Store, id string, turns int) {
	t.Helper()
	must(mem.CreateThread(t.Context(), memory.Thread{ID: id, ResourceID: "r"}))
	for i := range turns {
		must(mem.SaveMessages(t.Context(), "r", id, []keel.Message{keel.UserText(fmt.Sprint("question ", i)),
			{Role: keel.RoleAssistant, Parts: []keel.Part{keel.TextPart{Text: fmt.Sprint("answer ", i)}}}}))
	}
}

// openStore opens a real store of kind: SQLite in a temporary file, or a
// new database on the tests' PostgreSQL server.
func openStore(t testing.TB, kind string) memory.Store {
	t.Helper()
	var mem memory.Store
	var err error
	switch kind {
	case "sqlite":
		mem, err = sqlitestore.Open(filepath.Join(t.TempDir(), "keel.db"))
	case "postgres":
		mem, err = pgstore.Open(context.Background(), pgtest.Start(t))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mem.Close() })
	return mem
}

// A 300-turn thread in SQLite and PostgreSQL, asked over HTTP: the prompt
// holds the default window of 10 history messages, or
// memory.options.lastMessages of them; 0 and false send the whole thread.
func TestHistoryWindowOverHTTP(t *testing.T) {
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) { testHistoryWindow(t, openStore(t, kind)) })
	}
}

func testHistoryWindow(t *testing.T, mem memory.Store) {
	model := keeltest.NewModel(keeltest.Reply{Text: "ok"})
	model.RepeatLast = true
	e := newEnv(t, envOptions{model: model, mem: mem})
	cases := []struct {
		options string
		want    int // history messages in the prompt
	}{
		{``, 10},
		{`,"options":{"lastMessages":4}`, 4},
		{`,"options":{"lastMessages":false}`, 600},
		{`,"options":{"lastMessages":0}`, 600},
		{`,"options":{}`, 10},
		{`,"options":{"lastMessages":1000000}`, 600}, // the largest taken
	}
	for i, tc := range cases {
		t.Run(tc.options, func(t *testing.T) {
			id := fmt.Sprint("long-", i)
			seedTurns(t, mem, id, 300)
			status, body := e.do("POST", "/api/agents/support/generate", fmt.Sprintf(`{"messages":"and now?","memory":{"thread":%q,"resource":"r"%s}}`, id, tc.options))
			wantStatus(t, "generate", status, body, 200)
			prompts := model.Prompts()
			p := prompts[len(prompts)-1]
			// The prompt is the instructions, the history and the question.
			if got := len(p) - 2; got != tc.want || p[len(p)-2].Text() != "answer 299" {
				t.Fatalf("Got(prompt history) = %d messages ending %q; want %d ending answer 299", got, p[len(p)-2].Text(), tc.want)
			}
		})
	}
	for _, bad := range []string{`"x"`, `-1`, `true`, `1.5`, `1000001`} {
		status, body := e.do("POST", "/api/agents/support/generate", `{"messages":"hi","memory":{"thread":"long-0","resource":"r","options":{"lastMessages":`+bad+`}}}`)
		wantError(t, "lastMessages "+bad, status, body, 400, "memory.options.lastMessages")
	}
}
