package main_test

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/provider/google/googletest"
)

// TestFreshClone does, on a fresh clone of the commit under test, what a
// new user does first: README's first command exactly as written (its
// second, bash scripts/test.sh, runs this suite), keel version from a
// build there, and the release script. Uncommitted changes are not in the
// clone.
func TestFreshClone(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: it builds keel three times in a fresh clone, a minute or more")
	}
	rev := strings.TrimSpace(mustRun(t, "", "git", "rev-parse", "HEAD"))
	top := strings.TrimSpace(mustRun(t, "", "git", "rev-parse", "--show-toplevel"))
	clone := filepath.Join(t.TempDir(), "keel")
	mustRun(t, "", "git", "clone", "--quiet", "--no-checkout", top, clone)
	mustRun(t, clone, "git", "checkout", "--quiet", rev)

	// The clone holds the license and no build output.
	if lic, err := os.ReadFile(filepath.Join(clone, "LICENSE")); err != nil || !bytes.Contains(lic, []byte("Apache License\n                           Version 2.0, January 2004")) {
		t.Errorf("Got(LICENSE) error %v; want the Apache License 2.0", err)
	}
	for _, f := range strings.Fields(mustRun(t, clone, "git", "ls-files")) {
		if base := filepath.Base(f); strings.HasSuffix(f, ".test") || strings.HasPrefix(base, "keel.db") || base == "keel" || strings.HasSuffix(f, ".prof") {
			t.Errorf("Got(tracked file %s); want no build output or database in the repository", f)
		}
	}

	commands := readmeCommands(t, filepath.Join(clone, "README.md"))
	if len(commands) != 2 || commands[0] != "go run ./cmd/keel serve" || commands[1] != "bash scripts/test.sh" {
		t.Fatalf("Got(README's two commands) = %q; want go run ./cmd/keel serve, bash scripts/test.sh", commands)
	}

	t.Run(commands[0], func(t *testing.T) {
		if ln, err := net.Listen("tcp", "127.0.0.1:4111"); err != nil {
			t.Skipf("skipped: port 4111, where the command listens, is taken on this machine: %v", err)
		} else {
			ln.Close()
		}
		cmd := exec.Command("sh", "-c", commands[0])
		cmd.Dir, cmd.Env = clone, env()
		// go run starts keel as its child: the group gets the signal.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			_ = cmd.Wait()
		}()
		var stderr bytes.Buffer
		listening := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(pipe)
			said := false
			for sc.Scan() {
				stderr.WriteString(sc.Text() + "\n")
				if !said && strings.HasPrefix(sc.Text(), "keel serve: listening on http://127.0.0.1:4111/api") {
					said = true
					listening <- true
				}
			}
			if !said {
				listening <- false
			}
		}()
		select {
		case ok := <-listening:
			if !ok {
				t.Fatalf("Got(%s) ended before listening; want it to serve", commands[0])
			}
		case <-time.After(5 * time.Minute):
			t.Fatalf("Got(%s) silent for 5 minutes; want it to serve", commands[0])
		}
		resp, err := http.Get("http://127.0.0.1:4111/api/agents")
		if err != nil {
			t.Fatalf("Got(GET /api/agents) error %v; want an answer", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"assistant"`) {
			t.Errorf("Got(GET /api/agents) = %d %s; want 200 with the assistant", resp.StatusCode, body)
		}
	})

	t.Run("README's library example", func(t *testing.T) {
		// The example, copied as it is, runs against a Gemini that
		// answers the sheet with its real 502.
		src := readmeBlock(t, filepath.Join(clone, "README.md"), "## As a library", "```go\n")
		dir := filepath.Join(clone, "cmd", "readmeexample")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "main.go"), []byte(src))
		work := t.TempDir()
		writeFile(t, filepath.Join(work, "leads.xlsx"), leads(t))
		srv := googletest.NewServer(t, googletest.Options{Internal: []string{xlsxType}})
		bin := filepath.Join(t.TempDir(), "example")
		mustRun(t, clone, "go", "build", "-o", bin, "./cmd/readmeexample")
		cmd := exec.Command(bin)
		cmd.Dir, cmd.Env = work, env("GOOGLE_GENERATIVE_AI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL="+srv.URL())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("Got(README's library example) error %v; want it to run\n%s", err, out)
		}
		reqs := srv.Requests()
		if len(reqs) != 3 {
			t.Fatalf("Got(model calls) = %d; want 3: two on the first turn, one on the second (the refusal remembered)", len(reqs))
		}
		for _, i := range []int{1, 2} {
			texts, _ := requestTexts(t, srv, i)
			if !strings.Contains(texts, "Ada,Berlin") {
				t.Errorf("Got(request %d) texts %q; want the sheet's text", i+1, texts)
			}
		}
	})

	t.Run("README's keel.yaml", func(t *testing.T) {
		yaml := readmeBlock(t, filepath.Join(clone, "README.md"), "## Configuration", "```yaml\n")
		work := t.TempDir()
		writeFile(t, filepath.Join(work, "keel.yaml"), []byte(yaml))
		writeFile(t, filepath.Join(work, "leads.xlsx"), leads(t))
		writeFile(t, filepath.Join(work, "leads.csv"), []byte(leadsCSV+"\n"))
		srv := googletest.NewServer(t, googletest.Options{Text: "Two leads."})
		environ := env("GOOGLE_GENERATIVE_AI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL="+srv.URL())
		for i, file := range []string{"leads.csv", "leads.xlsx"} {
			mustKeel(t, work, environ, "run", "--agent", "analyst", "--file", file, "How many leads?")
			texts, _ := requestTexts(t, srv, i)
			if !strings.Contains(texts, "[File uploaded to the sandbox]") || !strings.Contains(texts, "Ada,Berlin") {
				t.Errorf("Got(analyst's request with %s) texts %q; want the note and the text", file, texts)
			}
		}
	})

	t.Run("keel version", func(t *testing.T) {
		bin := filepath.Join(t.TempDir(), "keel")
		mustRun(t, clone, "go", "build", "-buildvcs=true", "-o", bin, "./cmd/keel")
		if out := mustRun(t, clone, bin, "version"); !strings.Contains(out, "(revision "+rev) {
			t.Errorf("Got(keel version) = %q; want revision %s", out, rev)
		}
	})

	t.Run("scripts/release.sh", func(t *testing.T) {
		dist := t.TempDir()
		platform := runtime.GOOS + "/" + runtime.GOARCH
		cmd := exec.Command("bash", "scripts/release.sh", platform)
		cmd.Dir, cmd.Env = clone, env("DIST="+dist)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("Got(release.sh %s) error %v; want binaries\n%s", platform, err, out)
		}
		bins, _ := filepath.Glob(filepath.Join(dist, "keel-*-"+runtime.GOOS+"-"+runtime.GOARCH))
		if len(bins) != 1 {
			t.Fatalf("Got(binaries in %s) = %q; want one for %s", dist, bins, platform)
		}
		bin := bins[0]
		info := mustRun(t, "", "go", "version", "-m", bin)
		// Go leaves -ldflags out of the build info of a -trimpath build:
		// their effect is looked for in the binary instead.
		for _, w := range []string{"-trimpath=true", "CGO_ENABLED=0", "vcs.revision=" + rev} {
			if !strings.Contains(info, w) {
				t.Errorf("Got(build info of %s) = %s; want %s", bin, info, w)
			}
		}
		if f, err := elf.Open(bin); err == nil {
			if _, err := f.Symbols(); !errors.Is(err, elf.ErrNoSymbols) {
				t.Errorf("Got(symbols of %s) error %v; want none (-s)", bin, err)
			}
			for _, sec := range f.Sections {
				if strings.HasPrefix(sec.Name, ".debug_") || strings.HasPrefix(sec.Name, ".zdebug_") {
					t.Errorf("Got(section %s in %s); want no debug information (-w)", sec.Name, bin)
				}
			}
			f.Close()
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(clone)) {
			t.Errorf("Got(%s) holds the path %s of the machine that built it; want none (-trimpath)", bin, clone)
		}
		sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
		if err != nil || !strings.Contains(string(sums), filepath.Base(bin)) {
			t.Errorf("Got(SHA256SUMS) = %q, %v; want the binary's sum", sums, err)
		}
		if out := mustRun(t, "", bin, "version"); !strings.Contains(out, "(revision "+rev) {
			t.Errorf("Got(release binary's keel version) = %q; want revision %s", out, rev)
		}
	})
}

// mustRun runs a command in dir (the test's own when "") and returns its
// output, failing the test when it fails.
func mustRun(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if dir != "" {
		cmd.Env = env()
	}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("Got(%s %q) error %v; want it to run\n%s", name, args, err, stderr)
	}
	return string(out)
}

// readmeCommands returns the commands of README's "Two commands" section,
// without their comments.
func readmeCommands(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "## Two commands")
	_, block, ok2 := strings.Cut(section, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("Got(README) without a \"## Two commands\" section holding a sh block")
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		out = append(out, strings.TrimSpace(cmd))
	}
	return out
}

// readmeBlock returns the first fenced block opened by fence after the
// heading in the README at path.
func readmeBlock(t *testing.T, path, heading, fence string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), heading)
	_, block, ok2 := strings.Cut(section, fence)
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("Got(README) without a %q block under %q", fence, heading)
	}
	return block
}
