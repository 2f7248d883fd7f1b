package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/internal/pgtest"
	"github.com/keel-go/keel/provider/google/googletest"
)

// keelBin is the keel binary the tests run, built once by TestMain.
var keelBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "keel-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	keelBin = filepath.Join(dir, "keel")
	build := exec.Command("go", "build", "-o", keelBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build keel:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := pgtest.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

const (
	xlsxType    = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	geminiModel = "google/gemini-2.5-flash"
)

// env is a clean environment for keel: the host's provider keys and
// KEEL_* settings never leak into a test.
func env(extra ...string) []string {
	e := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir()}
	return append(e, extra...)
}

// geminiEnv points keel's default model at srv.
func geminiEnv(srv *googletest.Server, extra ...string) []string {
	return env(append([]string{
		"KEEL_MODEL=" + geminiModel,
		"GOOGLE_GENERATIVE_AI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL(),
	}, extra...)...)
}

// result is what a keel process did.
type result struct {
	stdout, stderr string
	code           int
}

// keel runs the binary in dir with environ and args, and waits at most a
// minute.
func keel(t *testing.T, dir string, environ []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(keelBin, args...)
	cmd.Dir, cmd.Env = dir, environ
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("Got(start keel %q) = %v; want nil", args, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("Got(keel %q) still running after a minute; want it done\nstderr: %s", args, errb.String())
	}
	res := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("Got(keel %q) = %v; want it to run", args, err)
	}
	return res
}

// mustKeel runs keel and fails the test unless it exits 0.
func mustKeel(t *testing.T, dir string, environ []string, args ...string) result {
	t.Helper()
	res := keel(t, dir, environ, args...)
	if res.code != 0 {
		t.Fatalf("Got(exit code of keel %s) = %d; want 0\nstdout: %s\nstderr: %s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	}
	return res
}

// xlsxBytes is a stand-in spreadsheet: the model server only looks at its
// media type, and bytes that are not text catch any re-encoding.
func xlsxBytes() []byte {
	b := []byte("PK\x03\x04 leads.xlsx\x00\xff\xfe")
	for i := 0; i < 4096; i++ {
		b = append(b, byte(i*7))
	}
	return b
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dieWithTest makes cmd's process get SIGKILL when the test binary dies
// before its cleanups run (a test's time-out panics, and t.Cleanup never
// runs): a keel serve or a Mastra Studio left behind would hold its port
// and its CPU after the suite.
func dieWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
