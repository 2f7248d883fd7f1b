package mcpclient_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/internal/mcptest"
	"github.com/keel-go/keel/mcp/mcpclient"
	"github.com/keel-go/keel/tool"
)

// The MCP project's reference servers, from test/mcp's lockfile, over
// stdio and streamable HTTP.

func everything(t testing.TB, name string) mcpclient.Config {
	cmd := mcptest.Everything(t)
	return mcpclient.Config{Name: name, Command: cmd.Path, Args: cmd.Args, Timeout: 20 * time.Second, Logger: quiet}
}

func everythingHTTP(t testing.TB, name string) (mcpclient.Config, *mcptest.HTTPServer) {
	srv := mcptest.EverythingHTTP(t)
	return mcpclient.Config{Name: name, URL: srv.URL, Headers: map[string]string{"X-Test": "${HOME}"},
		Timeout: 20 * time.Second, Logger: quiet}, srv
}

// everythingOver is server-everything, named everything, over transport
// ("stdio" or "http").
func everythingOver(t testing.TB, transport string) mcpclient.Config {
	if transport == "http" {
		cfg, _ := everythingHTTP(t, "everything")
		return cfg
	}
	return everything(t, "everything")
}

// filesOf splits what a tool returned into its output as JSON and its
// files.
func filesOf(out any) (string, []keel.FilePart) {
	var files []keel.FilePart
	if r, ok := out.(tool.Result); ok {
		out, files = r.Output, r.Files
	}
	b, _ := json.Marshal(out)
	return string(b), files
}

func TestEverythingServer(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cfg := everythingOver(t, transport)
			c := start(t, cfg)
			got := names(c.Tools())
			for _, want := range []string{"everything_echo", "everything_get-tiny-image", "everything_get-sum",
				"everything_gzip-file-as-resource", "everything_get-resource-links", "everything_trigger-long-running-operation"} {
				if !slices.Contains(got, want) {
					t.Errorf("Got(tools) = %v; want %s among them", got, want)
				}
			}
			// ServerTools names each tool the server's way and the model's.
			sts := c.ServerTools()
			if len(sts) != len(got) {
				t.Errorf("Got(ServerTools) = %d tools; want the %d of Tools", len(sts), len(got))
			}
			for i, st := range sts {
				if st.Tool.Name != got[i] || mcpclient.ToolName("everything", st.Name) != st.Tool.Name {
					t.Errorf("Got(ServerTools()[%d]) = %q as %q; want the server's name of %s", i, st.Name, st.Tool.Name, got[i])
				}
			}
			if i := slices.IndexFunc(sts, func(st mcpclient.ServerTool) bool { return st.Name == "get-tiny-image" }); i < 0 ||
				sts[i].Tool.Name != "everything_get-tiny-image" {
				t.Errorf("Got(ServerTools) = %+v; want get-tiny-image as everything_get-tiny-image", sts)
			}
			if st := c.Status(); st.ServerName != "mcp-servers/everything" || st.Transport != transport {
				t.Errorf("Got(Status) = %+v; want server-everything over %s", st, transport)
			}

			out, err := call(t, c, "everything_echo", `{"message":"hello"}`)
			if o, _ := filesOf(out); err != nil || o != `"Echo: hello"` {
				t.Errorf("Got(echo) = %s, %v; want \"Echo: hello\"", o, err)
			}
			out, err = call(t, c, "everything_get-sum", `{"a":2,"b":40}`)
			if o, _ := filesOf(out); err != nil || !strings.Contains(o, "42") {
				t.Errorf("Got(get-sum 2+40) = %s, %v; want 42", o, err)
			}

			// An image comes back as a file part, the PNG the server sent.
			out, err = call(t, c, "everything_get-tiny-image", `{}`)
			if err != nil {
				t.Fatal(err)
			}
			o, files := filesOf(out)
			if len(files) != 1 || files[0].MediaType != "image/png" || files[0].Filename != "everything_get-tiny-image-1.png" {
				t.Fatalf("Got(get-tiny-image files) = %+v; want one image/png", files)
			}
			if cfg, err := png.DecodeConfig(bytes.NewReader(files[0].Data)); err != nil || cfg.Width != 20 || cfg.Height != 20 {
				t.Errorf("Got(decoded image) = %+v, %v; want the 20x20 MCP logo", cfg, err)
			}
			if !strings.Contains(o, "Here's the image you requested") {
				t.Errorf("Got(get-tiny-image output) = %s; want the server's text", o)
			}

			// An embedded resource with bytes is a file too: the server
			// gzips what it is given.
			data := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("hello, gzip"))
			out, err = call(t, c, "everything_gzip-file-as-resource", `{"name":"hello.txt.gz","data":"`+data+`","outputType":"resource"}`)
			if err != nil {
				t.Fatal(err)
			}
			if _, files := filesOf(out); len(files) != 1 || files[0].MediaType != "application/gzip" ||
				files[0].Filename != "hello.txt.gz" || !bytes.HasPrefix(files[0].Data, []byte{0x1f, 0x8b}) {
				t.Errorf("Got(gzip-file-as-resource files) = %+v; want hello.txt.gz, gzip bytes", files)
			}

			// Resource links are text the model can read.
			out, err = call(t, c, "everything_get-resource-links", `{"count":2}`)
			if o, files := filesOf(out); err != nil || len(files) != 0 || strings.Count(o, "[resource link]") != 2 {
				t.Errorf("Got(get-resource-links) = %s, %d files, %v; want two links as text", o, len(files), err)
			}

			// The server's own failure is a tool error the model reads.
			_, err = call(t, c, "everything_get-sum", `{"a":"two"}`)
			if err == nil || !strings.Contains(err.Error(), "a") {
				t.Errorf("Got(get-sum with a bad argument) = %v; want the server's error", err)
			}
		})
	}
}

func TestEverythingCrashMidCall(t *testing.T) {
	c := start(t, everything(t, "everything"))
	pid := c.Status().PID
	time.AfterFunc(500*time.Millisecond, func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	_, err := call(t, c, "everything_trigger-long-running-operation", `{"duration":30,"steps":30}`)
	if err == nil || !strings.Contains(err.Error(), "stopped during the call") || !strings.Contains(err.Error(), "signal: killed") {
		t.Fatalf("Got(call when the server is killed) = %v; want an error saying it stopped", err)
	}
	out, err := call(t, c, "everything_echo", `{"message":"back"}`)
	if o, _ := filesOf(out); err != nil || o != `"Echo: back"` {
		t.Fatalf("Got(echo after the crash) = %s, %v; want the restarted server's answer", o, err)
	}
	if st := c.Status(); st.Restarts != 1 || st.PID == pid {
		t.Errorf("Got(Status after the crash) = %+v; want one restart, a new process", st)
	}
}

func TestEverythingHangingCallTimesOut(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cfg := everythingOver(t, transport)
			cfg.Timeout = time.Second
			c := start(t, cfg)
			begin := time.Now()
			_, err := call(t, c, "everything_trigger-long-running-operation", `{"duration":30,"steps":3}`)
			if err == nil || !strings.Contains(err.Error(), "no answer within 1s") {
				t.Fatalf("Got(a 30 s operation with a 1 s timeout) = %v; want a timeout", err)
			}
			if d := time.Since(begin); d > 5*time.Second {
				t.Errorf("Got(time to time out) = %s; want about 1 s", d)
			}
			out, err := call(t, c, "everything_echo", `{"message":"still"}`)
			if o, _ := filesOf(out); err != nil || o != `"Echo: still"` {
				t.Errorf("Got(echo after a timeout) = %s, %v", o, err)
			}
		})
	}
}

func TestEverythingHTTPServerRestarts(t *testing.T) {
	cfg, srv := everythingHTTP(t, "everything")
	c := start(t, cfg)
	srv.Kill()
	if _, err := call(t, c, "everything_echo", `{"message":"x"}`); err == nil {
		t.Fatalf("Got(call to a killed server) = nil; want an error")
	}
	srv.Restart(t)
	waitFor(t, 30*time.Second, "the client to reach the restarted server", func() bool {
		out, err := call(t, c, "everything_echo", `{"message":"again"}`)
		o, _ := filesOf(out)
		return err == nil && o == `"Echo: again"`
	})
}

func TestFilesystemServer(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	cmd := mcptest.Filesystem(t, root)
	c := start(t, mcpclient.Config{Name: "fs", Command: cmd.Path, Args: cmd.Args, Logger: quiet})
	for _, want := range []string{"fs_read_text_file", "fs_write_file", "fs_list_directory", "fs_read_media_file"} {
		if !slices.Contains(names(c.Tools()), want) {
			t.Errorf("Got(tools) = %v; want %s", names(c.Tools()), want)
		}
	}
	note := filepath.Join(root, "note.txt")
	if _, err := call(t, c, "fs_write_file", `{"path":"`+note+`","content":"written through MCP"}`); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(note); err != nil || string(b) != "written through MCP" {
		t.Errorf("Got(file on disk) = %q, %v", b, err)
	}
	out, err := call(t, c, "fs_read_text_file", `{"path":"`+note+`"}`)
	if o, _ := filesOf(out); err != nil || o != `"written through MCP"` {
		t.Errorf("Got(read_text_file) = %s, %v", o, err)
	}
	sheet := []byte("PK\x03\x04 a spreadsheet\x00\xff")
	if err := os.WriteFile(filepath.Join(root, "leads.xlsx"), sheet, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = call(t, c, "fs_read_media_file", `{"path":"`+filepath.Join(root, "leads.xlsx")+`"}`)
	if _, files := filesOf(out); err != nil || len(files) != 1 || files[0].Filename != "leads.xlsx" || !bytes.Equal(files[0].Data, sheet) {
		t.Errorf("Got(read_media_file of a spreadsheet) = %+v, %v; want leads.xlsx, its bytes", files, err)
	}
	_, err = call(t, c, "fs_read_text_file", `{"path":"/etc/passwd"}`)
	if err == nil || !strings.Contains(err.Error(), "denied") {
		t.Errorf("Got(reading outside the root) = %v; want the server's refusal", err)
	}
}
