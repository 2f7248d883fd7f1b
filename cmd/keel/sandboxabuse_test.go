package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
	"github.com/keel-go/keel/workspace/sandboxtest"
)

// A scripted model for driving the sandbox tools through keel serve: a
// user message "TOOL <name> <json args>" makes it call that tool; the
// tool's result comes back as its answer, so that /generate's text is
// what the tool returned.
func toolModel(t *testing.T) *googletest.Server {
	return googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, _ int) (providertest.Reply, bool) {
		body, err := r.Decode()
		if err != nil || len(body.Contents) == 0 {
			return providertest.Reply{}, false
		}
		last := body.Contents[len(body.Contents)-1]
		for _, p := range last.Parts {
			if p.FunctionResponse != nil {
				return providertest.Reply{Body: googletest.TextBody(string(p.FunctionResponse.Response))}, true
			}
		}
		for _, p := range last.Parts {
			if rest, ok := strings.CutPrefix(p.Text, "TOOL "); ok {
				name, args, _ := strings.Cut(rest, " ")
				return providertest.Reply{Body: googletest.ToolCallBody("", name, args)}, true
			}
		}
		return providertest.Reply{}, false
	}})
}

// useTool has the agent call tool with args in resource u1's thread and
// returns what the tool returned.
func useTool(t *testing.T, client *http.Client, url, thread, tool, args string) string {
	t.Helper()
	msg, _ := json.Marshal("TOOL " + tool + " " + args)
	body := fmt.Sprintf(`{"messages":%s,"memory":{"thread":%q,"resource":"u1"}}`, msg, thread)
	resp, err := client.Post(url+"/api/agents/assistant/generate", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("Got(generate calling %s %s) error %v; want an answer", tool, args, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var gen struct{ Text string }
	if err := json.Unmarshal(b, &gen); resp.StatusCode != 200 || err != nil {
		t.Fatalf("Got(generate calling %s %s) = %d %s; want 200", tool, args, resp.StatusCode, b)
	}
	return gen.Text
}

// procStatus returns a field of /proc/PID/status, such as Threads or
// VmHWM (in kB).
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// sandboxServe starts keel serve with its sandboxes where the dedicated
// user reaches them and a scripted model.
func sandboxServe(t *testing.T) *served {
	t.Helper()
	requireBwrapCmd(t)
	dir := sandboxtest.ReachableTempDir(t)
	return startServe(t, dir, geminiEnv(toolModel(t)), "--addr", "127.0.0.1:0", "--sandbox", dir+"/sandboxes")
}

func requireBwrapCmd(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bwrap not found (CI is set, so this fails instead of skipping): %v", err)
		}
		t.Skip("bwrap not found: install bubblewrap")
	}
}

// A FIFO a command made hangs neither read_file nor list_files: 40 reads
// of one leave keel's threads as they were, and each answers at once,
// saying it is not a regular file.
func TestServeFIFODoesNotHangTools(t *testing.T) {
	s := sandboxServe(t)
	client := &http.Client{Timeout: 30 * time.Second}
	if out := useTool(t, client, s.url, "fifo", "run_command", `{"command":"mkfifo pipe && echo made"}`); !strings.Contains(out, "made") {
		t.Fatalf("Got(mkfifo) = %s; want the FIFO made", out)
	}
	pid := s.cmd.Process.Pid
	before := procStatus(t, pid, "Threads")
	for i := range 40 {
		out := useTool(t, client, s.url, "fifo", "read_file", `{"path":"pipe"}`)
		if !strings.Contains(out, "not a regular file") {
			t.Fatalf("Got(read_file of a FIFO, call %d) = %s; want it refused as not a regular file", i, out)
		}
	}
	if out := useTool(t, client, s.url, "fifo", "list_files", `{"path":"pipe"}`); !strings.Contains(out, "not a directory") {
		t.Errorf("Got(list_files of a FIFO) = %s; want it refused as not a directory", out)
	}
	after := procStatus(t, pid, "Threads")
	t.Logf("keel's threads: %d before 40 FIFO reads, %d after", before, after)
	if after > before+4 {
		t.Errorf("Got(keel's threads) = %d after 40 FIFO reads, %d before; want them flat", after, before)
	}
}

// A sparse file becomes neither keel's memory through read_file nor
// through 8 concurrent downloads: keel's peak RSS stays within 64 MiB
// of what it was.
func TestServeSparseFilesStayOnDisk(t *testing.T) {
	s := sandboxServe(t)
	client := &http.Client{Timeout: 2 * time.Minute}
	out := useTool(t, client, s.url, "sparse", "run_command", `{"command":"truncate -s 1000M big && truncate -s 99M dl && echo made"}`)
	if !strings.Contains(out, "made") {
		t.Fatalf("Got(truncate) = %s; want two sparse files", out)
	}
	pid := s.cmd.Process.Pid
	peak := procStatus(t, pid, "VmHWM")
	out = useTool(t, client, s.url, "sparse", "read_file", `{"path":"big","maxBytes":16}`)
	if !strings.Contains(out, `"size":1048576000`) {
		t.Errorf("Got(read_file big, maxBytes 16) = %.300s; want the first bytes of a 1000 MiB file", out)
	}
	var wg sync.WaitGroup
	sizes := make([]int64, 8)
	for i := range sizes {
		wg.Go(func() {
			resp, err := client.Get(s.url + "/api/agents/assistant/sandbox/files/dl?resourceId=u1")
			if err != nil {
				t.Errorf("Got(download %d) error %v; want the file", i, err)
				return
			}
			defer resp.Body.Close()
			n, _ := io.Copy(io.Discard, resp.Body)
			if resp.StatusCode == 200 {
				sizes[i] = n
			}
		})
	}
	wg.Wait()
	for i, n := range sizes {
		if n != 99<<20 {
			t.Errorf("Got(download %d) = %d bytes; want all 99 MiB", i, n)
		}
	}
	after := procStatus(t, pid, "VmHWM")
	t.Logf("keel's peak RSS: %d MiB before, %d MiB after read_file of a 1000 MiB sparse file and 8 downloads of a 99 MiB one", peak>>10, after>>10)
	if after-peak > 64<<10 {
		t.Errorf("Got(keel's peak RSS) = %d MiB, %d MiB before; want it within 64 MiB", after>>10, peak>>10)
	}
}

// keel as PID 1 of its own pid namespace (a container without --init)
// reaps what it adopts: after 200 commands through run_command, no
// zombie is left among its children.
func TestServeAsPID1LeavesNoZombies(t *testing.T) {
	requireBwrapCmd(t)
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("need root and unshare to run keel as PID 1 (CI is set, so this fails instead of skipping): %v", err)
		}
		t.Skip("need root and util-linux's unshare to run keel as PID 1")
	}
	dir := sandboxtest.ReachableTempDir(t)
	cmd := exec.Command(unshare, "--pid", "--fork", "--kill-child", "--mount-proc", keelBin, "serve", "--addr", "127.0.0.1:0", "--sandbox", dir+"/sandboxes")
	cmd.Dir, cmd.Env = dir, geminiEnv(toolModel(t))
	s := startServeCmd(t, cmd)
	if !strings.Contains(s.Stderr(), "running as PID 1: keel reaps") {
		t.Errorf("Got(start-up message) = %q; want it to say that keel, PID 1, reaps orphans", s.Stderr())
	}
	keelPid := childrenOf(t, cmd.Process.Pid)
	if len(keelPid) != 1 {
		t.Fatalf("Got(children of unshare) = %v; want keel alone", keelPid)
	}
	client := &http.Client{Timeout: time.Minute}
	const commands, workers = 200, 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < commands; i += workers {
				// A background process that outlives its shell, as builds
				// and servers leave behind.
				out := useTool(t, client, s.url, fmt.Sprintf("z%d", w), "run_command", `{"command":"sleep 0.01 & echo ran"}`)
				if !strings.Contains(out, "ran") {
					t.Errorf("Got(command %d) = %s; want it run", i, out)
					return
				}
			}
		})
	}
	wg.Wait()
	var zombies []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		zombies = zombies[:0]
		for _, pid := range childrenOf(t, keelPid[0]) {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
				if i := strings.LastIndexByte(string(b), ')'); i > 0 && strings.HasPrefix(string(b[i:]), ") Z") {
					zombies = append(zombies, string(b[:i+1]))
				}
			}
		}
		if len(zombies) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("zombies among keel's children after %d commands with keel as PID 1: %d", commands, len(zombies))
	if len(zombies) > 0 {
		t.Errorf("Got(%d zombies among keel's children: %.200q) after %d commands; want none", len(zombies), zombies, commands)
	}
	// unshare passes no signal on: keel itself is told to stop.
	if err := syscall.Kill(keelPid[0], syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("Got(exit after SIGTERM) = %v; want 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("Got(keel as PID 1 after SIGTERM) still running after 30 s; want it stopped")
	}
}

// childrenOf lists the children of the process pid.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	var out []int
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, task.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
