package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"iter"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/memory/pgstore"
	"github.com/keel-go/keel/server"
)

// tickingModel streams "c0 ", "c1 "... 5 ms apart, noting when it sent
// each.
type tickingModel struct {
	chunks int
	mu     sync.Mutex
	sent   map[string]time.Time
}

func (m *tickingModel) Provider() string { return "ticking" }
func (m *tickingModel) Name() string     { return "ticking" }

func (m *tickingModel) Generate(ctx context.Context, req *keel.Request) (*keel.Response, error) {
	return &keel.Response{Parts: []keel.Part{keel.TextPart{Text: "ok"}}, FinishReason: keel.FinishStop}, nil
}

func (m *tickingModel) Stream(ctx context.Context, req *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		for i := range m.chunks {
			text := "c" + strconv.Itoa(i) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36) + " "
			m.mu.Lock()
			m.sent[text] = time.Now()
			m.mu.Unlock()
			if !yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: text}, nil) {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		yield(keel.StreamEvent{Type: keel.EventFinish, FinishReason: keel.FinishStop}, nil)
	}
}

// servePG serves agent "support" with model on its own store on the
// PostgreSQL database url, until the test or benchmark ends.
func servePG(b testing.TB, url string, model keel.Model) string {
	b.Helper()
	store, err := pgstore.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	a := must(agent.New(agent.Config{ID: "support", Model: model, Memory: store, Logger: quietLogger()}))
	srv := must(server.New(server.Config{Agents: []*agent.Agent{a}, Memory: store, Logger: quietLogger()}))
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Serve(ctx, ln); close(done) }()
	b.Cleanup(func() { cancel(); <-done; store.Close() })
	return "http://" + ln.Addr().String()
}

// BenchmarkThreadEventAcrossServers times a chunk of a turn run on one
// server from the moment the model sends it to the moment a Studio
// subscriber on another server reads it: through the agent, the server,
// PostgreSQL's NOTIFY, the other server's LISTEN and its subscription.
// Each iteration is a turn of 20 chunks, 5 ms apart.
//
//	go test -run '^$' -bench ThreadEventAcrossServers -benchtime 20x ./server/
func BenchmarkThreadEventAcrossServers(b *testing.B) {
	url := pgtest.Start(b)
	model := &tickingModel{chunks: 20, sent: map[string]time.Time{}}
	one, two := servePG(b, url, model), servePG(b, url, model)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", two+"/api/agents/support/threads/subscribe", strings.NewReader(`{"resourceId":"r","threadId":"t1"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("Got(subscribe) = %v, %v; want 200", resp, err)
	}
	defer resp.Body.Close()
	var lat []time.Duration
	got := make(chan struct{}, 1024)
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			now := time.Now()
			var c struct {
				Type    string
				Payload struct{ Text string }
			}
			if json.Unmarshal([]byte(data), &c) != nil || c.Type != "text-delta" {
				continue
			}
			model.mu.Lock()
			sent, ok := model.sent[c.Payload.Text]
			model.mu.Unlock()
			if ok {
				mu.Lock()
				lat = append(lat, now.Sub(sent))
				mu.Unlock()
				select {
				case got <- struct{}{}:
				default:
				}
			}
		}
	}()
	// The listener is up once a turn's chunks come through.
	run := func() {
		r, err := http.Post(one+"/api/agents/support/stream", "application/json", strings.NewReader(`{"memory":{"thread":"t1","resource":"r"},"messages":"go"}`))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = bufio.NewReader(r.Body).WriteTo(discard{})
		r.Body.Close()
	}
	for ready := false; !ready; {
		run()
		select {
		case <-got:
			ready = true
		case <-time.After(time.Second):
		}
	}
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	lat = lat[:0]
	mu.Unlock()

	b.ResetTimer()
	for range b.N {
		run()
	}
	deadline := time.After(10 * time.Second)
	for {
		mu.Lock()
		n := len(lat)
		mu.Unlock()
		if n >= b.N*model.chunks {
			break
		}
		select {
		case <-got:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			b.Fatalf("Got(chunks on the other server) = %d; want %d", n, b.N*model.chunks)
		}
	}
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(ms(0.5), "ms-p50/event")
	b.ReportMetric(ms(0.99), "ms-p99/event")
	b.ReportMetric(ms(1), "ms-max/event")
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
