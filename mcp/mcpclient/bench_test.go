package mcpclient_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/tool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What keel adds to a call of a stdio tool: the same echo, called through
// keel's tool (waiting for the connection, the timeout, mapping the
// result) and straight through the SDK's session, on a server of each
// kind. The difference of the two is keel's part; the server's own time
// is in both.
func BenchmarkStdioCall(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	servers := []struct {
		name    string
		cfg     func(b *testing.B) mcpclient.Config
		tool    string
		keelArg string
	}{
		{"go", func(b *testing.B) mcpclient.Config { return testServer(b, nil) }, "echo", `{"message":"hello"}`},
		{"everything", func(b *testing.B) mcpclient.Config { return everything(b, "t") }, "echo", `{"message":"hello"}`},
	}
	for _, s := range servers {
		b.Run(s.name+"/sdk", func(b *testing.B) {
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
			params := &sdk.CallToolParams{Name: s.tool, Arguments: json.RawMessage(s.keelArg)}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := sess.CallTool(context.Background(), params); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/keel", func(b *testing.B) {
			c := start(b, s.cfg(b))
			exec := find(b, c.Tools(), "t_"+s.tool).Execute
			call := tool.Call{ID: "c1", Input: json.RawMessage(s.keelArg)}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := exec(context.Background(), call); err != nil {
					b.Fatal(err)
				}
			}
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
