package server_test

import (
	"bufio"
	"context"
	"fmt"
	"iter"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

// stampModel answers "ok" at once and tells when each call began.
type stampModel struct{ called chan time.Time }

func (m *stampModel) Provider() string { return "stamp" }
func (m *stampModel) Name() string     { return "stamp" }

func (m *stampModel) Generate(ctx context.Context, _ *keel.Request) (*keel.Response, error) {
	m.called <- time.Now()
	return &keel.Response{Parts: []keel.Part{keel.TextPart{Text: "ok"}}, FinishReason: keel.FinishStop}, nil
}

func (m *stampModel) Stream(ctx context.Context, _ *keel.Request) iter.Seq2[keel.StreamEvent, error] {
	return func(yield func(keel.StreamEvent, error) bool) {
		m.called <- time.Now()
		if yield(keel.StreamEvent{Type: keel.EventTextDelta, Text: "ok"}, nil) {
			yield(keel.StreamEvent{Type: keel.EventFinish, FinishReason: keel.FinishStop}, nil)
		}
	}
}

// BenchmarkStudioSendToModel times what Studio's chat waits for: from
// the send-message request to the model's call, through keel's HTTP
// server, the thread's queue and the agent loop (the turn's message is
// stored in SQLite before the call), with Studio's subscription open.
// Each turn finishes before the next is sent, as a person chats.
func BenchmarkStudioSendToModel(b *testing.B) {
	model := &stampModel{called: make(chan time.Time, 1)}
	hs := benchServer(b, model)
	sub, err := http.Post(hs.URL+"/api/agents/support/threads/subscribe", "application/json",
		strings.NewReader(`{"resourceId":"support","threadId":"bench"}`))
	if err != nil || sub.StatusCode != http.StatusOK {
		b.Fatalf("Got(subscribe) = %v %v; want 200", err, sub)
	}
	defer sub.Body.Close()
	events := bufio.NewReader(sub.Body)
	waitFinish := func() {
		for {
			line, err := events.ReadString('\n')
			if err != nil {
				b.Fatalf("Got(subscription) = %v; want the turn's finish", err)
			}
			if strings.HasPrefix(line, `data: {"type":"finish"`) {
				return
			}
		}
	}
	body := `{"message":{"contents":"hello"},"resourceId":"support","threadId":"bench"}`
	var total, worst time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		resp, err := hs.Client().Post(hs.URL+"/api/agents/support/send-message", "application/json", strings.NewReader(body))
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("Got(send-message) = %v %v; want 200", err, resp)
		}
		resp.Body.Close()
		d := (<-model.called).Sub(start)
		total += d
		worst = max(worst, d)
		waitFinish()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-to-model")
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms-to-model-max")
}

// BenchmarkStudioIdleSubscriptions opens 100 idle subscriptions, as 100
// open Studio chats hold, and reports what they cost the process: its
// resident memory and its Go heap and stacks, once collected. The clients
// are bare connections that read nothing past ": connected", so nearly
// all of the cost is the server's.
func BenchmarkStudioIdleSubscriptions(b *testing.B) {
	const n = 100
	hs := benchServer(b, &stampModel{called: make(chan time.Time, 1)})
	addr := strings.TrimPrefix(hs.URL, "http://")
	var rss, heap int64
	for range b.N {
		rss0, heap0 := footprint(b)
		conns := make([]net.Conn, 0, n)
		for i := range n {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
			body := fmt.Sprintf(`{"resourceId":"support","threadId":"idle-%d"}`, i)
			fmt.Fprintf(c, "POST /api/agents/support/threads/subscribe HTTP/1.1\r\nHost: keel\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			r := bufio.NewReader(c)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					b.Fatalf("Got(subscription %d) = %v; want : connected", i, err)
				}
				if strings.HasPrefix(line, ": connected") {
					break
				}
			}
		}
		rss1, heap1 := footprint(b)
		rss += rss1 - rss0
		heap += heap1 - heap0
		for _, c := range conns {
			c.Close()
		}
	}
	b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "MiB-RSS/100subs")
	b.ReportMetric(float64(heap)/float64(b.N)/(1<<20), "MiB-heap+stacks/100subs")
}

// footprint is the process's resident memory and its Go heap and stacks
// in use, after a collection.
func footprint(b *testing.B) (rss, heap int64) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("Got(VmRSS) = %q: %v", line, err)
			}
			rss = kb << 10
		}
	}
	return rss, int64(ms.HeapInuse + ms.StackInuse)
}
