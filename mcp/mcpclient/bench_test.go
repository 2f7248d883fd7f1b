package mcpclient_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What keel adds to a call of a stdio tool: the same echo, called through
// keel's tool (waiting for the connection, the timeout, mapping the
// result) and straight through the SDK's session to a second process of
// the same server, one after the other in each iteration, so that the
// machine's noise falls on both alike. sdk-ns/call is the server's own
// time and the transport's; keel-ns/call adds keel's part, and
// overhead-ns/call is the difference (negative when keel's call was the
// quicker one: noise).
func BenchmarkStdioCall(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []struct {
		name string
		cfg  func(b *testing.B) mcpclient.Config
	}{
		{"go", func(b *testing.B) mcpclient.Config { return testServer(b, nil) }},
		{"everything", func(b *testing.B) mcpclient.Config { return everything(b, "t") }},
	} {
		b.Run(s.name, func(b *testing.B) {
			cfg := s.cfg(b)
			cmd := exec.Command(cfg.Command, cfg.Args...)
			if s.name == "go" {
				cmd = exec.Command(exe)
				cmd.Env = append(os.Environ(), serverEnv+"=1")
			}
			sess, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).
				Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer sess.Close()
			params := &sdk.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hello"}`)}
			c := start(b, cfg)
			exec := find(b, c.Tools(), "t_echo").Execute
			call := tool.Call{ID: "c1", Input: json.RawMessage(`{"message":"hello"}`)}
			var sdkTime, keelTime time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				if _, err := sess.CallTool(context.Background(), params); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := exec(context.Background(), call); err != nil {
					b.Fatal(err)
				}
				sdkTime, keelTime = sdkTime+t1.Sub(t0), keelTime+time.Since(t1)
			}
			n := float64(b.N)
			b.ReportMetric(float64(sdkTime.Nanoseconds())/n, "sdk-ns/call")
			b.ReportMetric(float64(keelTime.Nanoseconds())/n, "keel-ns/call")
			b.ReportMetric(float64((keelTime-sdkTime).Nanoseconds())/n, "overhead-ns/call")
		})
	}
}

// 100 calls of a tool that waits 10 ms, at once, to one stdio server per
// operation: the time of the batch (against 100 one after the other,
// sequential: 1 s and more) and the goroutines left once it is over
// (goroutines-left, which must stay 0).
func BenchmarkConcurrentCalls(b *testing.B) {
	for _, mode := range []string{"sequential", "concurrent"} {
		b.Run(mode, func(b *testing.B) {
			c := start(b, testServer(b, nil))
			exec := find(b, c.Tools(), "t_sleep").Execute
			call := tool.Call{Input: json.RawMessage(`{"ms":10}`)}
			if _, err := exec(context.Background(), call); err != nil {
				b.Fatal(err)
			}
			before := settledGoroutines(0)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var wg sync.WaitGroup
				for range 100 {
					if mode == "sequential" {
						if _, err := exec(context.Background(), call); err != nil {
							b.Fatal(err)
						}
						continue
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := exec(context.Background(), call); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
			}
			b.StopTimer()
			b.ReportMetric(float64(max(settledGoroutines(before)-before, 0)), "goroutines-left")
		})
	}
}
