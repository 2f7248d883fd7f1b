package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
)

// BenchmarkTurnLongThread is one text generate over HTTP in a thread that
// already holds 20 or 600 messages (10 or 300 turns), in SQLite and in
// PostgreSQL, with a scripted model (the server's and the store's own
// cost). Each turn has a thread of its own, seeded before the timer
// starts, so that every timed turn meets a thread of exactly that length. With the
// default history window of 10 messages, a turn at 600 should cost about
// what one at 20 does; "whole" sends the whole thread (lastMessages
// false), as every turn did before the window. The history-msgs metric
// is what the model was sent.
func BenchmarkTurnLongThread(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		for _, tc := range []struct {
			n       int
			options string
		}{{20, ""}, {600, ""}, {600, `,"options":{"lastMessages":false}`}} {
			name := fmt.Sprintf("%s/messages=%d", kind, tc.n)
			if tc.options != "" {
				name += "/whole"
			}
			b.Run(name, func(b *testing.B) {
				mem := openStore(b, kind)
				var history atomic.Int64
				model := keeltest.NewModel(keeltest.Reply{Respond: func(req *keel.Request) keeltest.Reply {
					history.Store(int64(len(req.Messages) - 2)) // less the instructions and the question
					return keeltest.Reply{Text: "Hello from the mock model."}
				}})
				model.RepeatLast, model.NoRecord = true, true
				a := must(agent.New(agent.Config{ID: "support", Instructions: "You are helpful.", Model: model, Memory: mem, Logger: quietLogger()}))
				srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger()}))
				hs := httptest.NewServer(srv.Handler())
				defer hs.Close()
				// Every thread is seeded before the clock starts, turn by
				// turn as turns store them, so that the database's own
				// work after the seeding is not the turns' to pay.
				bodies := make([][]byte, b.N)
				for i := range bodies {
					id := fmt.Sprintf("long-%d", i)
					seedTurns(b, mem, id, tc.n/2)
					bodies[i] = fmt.Appendf(nil, `{"messages":"and now?","memory":{"thread":%q,"resource":"r"%s}}`, id, tc.options)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for _, body := range bodies {
					postGenerate(b, hs.Client(), hs.URL, body)
				}
				b.ReportMetric(float64(history.Load()), "history-msgs")
			})
		}
	}
}

// BenchmarkAuth is one GET /api/agents with each kind of auth: none, the
// shared token, and a user's HS256 token, which the verifier checks on
// every request.
func BenchmarkAuth(b *testing.B) {
	users := must(jwtauth.New(jwtauth.Options{Secret: jwtSecret, Audience: []string{"keel"}, Logger: quietLogger()}))
	for _, tc := range []struct {
		name, token string
		cfg         func(*server.Config)
	}{
		{"none", "", func(*server.Config) {}},
		{"token", "shared-token", func(c *server.Config) { c.Token = "shared-token" }},
		{"jwt-hs256", userToken(b, "alice"), func(c *server.Config) { c.Users = users }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			a := must(agent.New(agent.Config{ID: "support", Model: keeltest.NewModel(), Logger: quietLogger()}))
			cfg := server.Config{Agents: []*agent.Agent{a}, Logger: quietLogger()}
			tc.cfg(&cfg)
			hs := httptest.NewServer(must(server.New(cfg)).Handler())
			defer hs.Close()
			req := must(http.NewRequest("GET", hs.URL+"/api/agents", nil))
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := hs.Client().Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("Got(status) = %d; want 200", resp.StatusCode)
				}
			}
		})
	}
}
