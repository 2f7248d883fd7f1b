package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/server"
	"github.com/keel-go/keel/server/jwtauth"
)

// BenchmarkTurnLongThread is a text generate over HTTP in a thread that
// already holds 20 messages and one in a thread of 600 (10 and 300
// turns), in SQLite and in PostgreSQL, with a scripted model (the
// server's and the store's own cost). Every iteration makes one turn of
// each, in alternating order, so that both meet the same machine; the
// metrics are each one's median and the ratio of the medians. Each turn
// has a thread of its own, built as turns build them (one save per turn)
// before the timer starts, so that every timed turn meets a thread of
// exactly that length. "whole" sends the whole 600-message thread
// (lastMessages false), as every turn did before the history window; its
// history-msgs metric is what the model was sent.
func BenchmarkTurnLongThread(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			hs, mem, _ := turnServer(b, kind)
			short, long := seedBodies(b, mem, "short", 20, b.N, ""), seedBodies(b, mem, "long", 600, b.N, "")
			at20, at600 := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				first, second := short[i], long[i]
				d1, d2 := &at20, &at600
				if i%2 == 1 {
					first, second, d1, d2 = second, first, d2, d1
				}
				start := time.Now()
				postGenerate(b, hs.Client(), hs.URL, first)
				mid := time.Now()
				postGenerate(b, hs.Client(), hs.URL, second)
				*d1, *d2 = append(*d1, mid.Sub(start)), append(*d2, time.Since(mid))
			}
			m20, m600 := median(at20), median(at600)
			b.ReportMetric(float64(m20.Microseconds()), "µs-at-20")
			b.ReportMetric(float64(m600.Microseconds()), "µs-at-600")
			b.ReportMetric(float64(m600)/float64(m20), "ratio-600/20")
		})
		b.Run(kind+"/whole", func(b *testing.B) {
			hs, mem, history := turnServer(b, kind)
			bodies := seedBodies(b, mem, "whole", 600, b.N, `,"options":{"lastMessages":false}`)
			b.ReportAllocs()
			b.ResetTimer()
			for _, body := range bodies {
				postGenerate(b, hs.Client(), hs.URL, body)
			}
			b.ReportMetric(float64(history.Load()), "history-msgs")
		})
	}
}

// turnServer serves one agent with a store of kind; history is the number
// of history messages of the model's last call.
func turnServer(b *testing.B, kind string) (*httptest.Server, memory.Store, *atomic.Int64) {
	mem := openStore(b, kind)
	history := new(atomic.Int64)
	model := keeltest.NewModel(keeltest.Reply{Respond: func(req *keel.Request) keeltest.Reply {
		history.Store(int64(len(req.Messages) - 2)) // less the instructions and the question
		return keeltest.Reply{Text: "Hello from the mock model."}
	}})
	model.RepeatLast, model.NoRecord = true, true
	a := must(agent.New(agent.Config{ID: "support", Instructions: "You are helpful.", Model: model, Memory: mem, Logger: quietLogger()}))
	srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger()}))
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(hs.Close)
	return hs, mem, history
}

// seedBodies makes count threads of messages messages each and returns a
// generate body for each, with options added to its memory.
func seedBodies(b *testing.B, mem memory.Store, prefix string, messages, count int, options string) [][]byte {
	bodies := make([][]byte, count)
	for i := range bodies {
		id := fmt.Sprintf("%s-%d", prefix, i)
		seedTurns(b, mem, id, messages/2)
		bodies[i] = fmt.Appendf(nil, `{"messages":"and now?","memory":{"thread":%q,"resource":"r"%s}}`, id, options)
	}
	return bodies
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
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
