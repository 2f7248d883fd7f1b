package server_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/agent"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/memory/sqlitestore"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/server"
	"os"
)

// benchServer serves one agent with SQLite memory over HTTP.
func benchServer(b *testing.B, model keel.Model) *httptest.Server {
	b.Helper()
	mem, err := openBenchStore(b)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { mem.Close() })
	a, err := agent.New(agent.Config{ID: "support", Instructions: "You are helpful.", Model: model, Memory: mem, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := server.New(server.Config{Agents: []*agent.Agent{a}, Memory: mem, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(hs.Close)
	hs.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	return hs
}

var benchThread atomic.Int64

func postGenerate(b *testing.B, c *http.Client, url string, body []byte) int {
	resp, err := c.Post(url+"/api/agents/support/generate", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("Got(status) = %d; want 200", resp.StatusCode)
	}
	return int(n)
}

func textBody() []byte {
	return fmt.Appendf(nil, `{"messages":"Say hi","memory":{"thread":"bench-%d","resource":"user-1"}}`, benchThread.Add(1))
}

// BenchmarkGenerateText is one text generate over HTTP, a new thread per
// call, SQLite memory, with a scripted model (the server's own cost) and
// with the Gemini adapter against a local Gemini server.
func BenchmarkGenerateText(b *testing.B) {
	b.Run("scripted", func(b *testing.B) {
		model := keeltest.NewModel(keeltest.Reply{Text: "Hello from the mock model."})
		model.RepeatLast, model.NoRecord = true, true
		hs := benchServer(b, model)
		b.ReportAllocs()
		for b.Loop() {
			postGenerate(b, hs.Client(), hs.URL, textBody())
		}
	})
	b.Run("gemini", func(b *testing.B) {
		gem := googletest.Start(googletest.Options{Text: "Hello from the mock model."})
		defer gem.Close()
		model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: gem.URL()})
		if err != nil {
			b.Fatal(err)
		}
		hs := benchServer(b, model)
		b.ReportAllocs()
		for b.Loop() {
			postGenerate(b, hs.Client(), hs.URL, textBody())
		}
	})
	b.Run("scripted-parallel", func(b *testing.B) {
		model := keeltest.NewModel(keeltest.Reply{Text: "Hello from the mock model."})
		model.RepeatLast, model.NoRecord = true, true
		hs := benchServer(b, model)
		b.ReportAllocs()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				postGenerate(b, hs.Client(), hs.URL, textBody())
			}
		})
	})
}

// BenchmarkGeneratePDF is one generate with a 1 MiB PDF attached, stored
// in SQLite, with a scripted model that does not read it (the server's own
// cost) and with the Gemini adapter, which encodes it for the wire.
func BenchmarkGeneratePDF(b *testing.B) {
	b.Run("scripted", func(b *testing.B) {
		model := keeltest.NewModel(keeltest.Reply{Text: "A summary."})
		model.RepeatLast, model.NoRecord = true, true
		benchPDF(b, model)
	})
	b.Run("gemini", func(b *testing.B) {
		gem := googletest.Start(googletest.Options{Text: "A summary."})
		defer gem.Close()
		model, err := google.New("gemini-2.5-flash", google.Options{APIKey: "k", BaseURL: gem.URL()})
		if err != nil {
			b.Fatal(err)
		}
		benchPDF(b, model)
	})
}

func benchPDF(b *testing.B, model keel.Model) {
	hs := benchServer(b, model)
	pdf := bytes.Repeat([]byte("%PDF-1.7 0123456789abcdef"), (1<<20)/25)
	data := base64.StdEncoding.EncodeToString(pdf)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	// The body is put together from parts made once, so that the loop
	// measures the server rather than the formatting of a megabyte.
	head := []byte(`{"memory":{"thread":"pdf-`)
	tail := []byte(`","resource":"u"},"messages":[{"role":"user","content":[` +
		`{"type":"text","text":"Summarize"},{"type":"file","data":"data:application/pdf;base64,` + data +
		`","mediaType":"application/pdf","filename":"r.pdf"}]}]}`)
	body := make([]byte, 0, len(head)+20+len(tail))
	var size int
	for b.Loop() {
		body = append(strconv.AppendInt(append(body[:0], head...), benchThread.Add(1), 10), tail...)
		size = postGenerate(b, hs.Client(), hs.URL, body)
	}
	b.ReportMetric(float64(size), "response-bytes")
}

// openBenchStore opens the benchmarks' store: SQLite in a temporary
// file, or with KEEL_BENCH_INMEMORY set, the in-memory store, to tell the
// server's cost from SQLite's.
func openBenchStore(b *testing.B) (memory.Store, error) {
	if os.Getenv("KEEL_BENCH_INMEMORY") != "" {
		return memory.NewInMemory(), nil
	}
	return sqlitestore.Open(b.TempDir() + "/keel.db")
}
