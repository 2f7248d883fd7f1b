package convert_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/keel-go/keel/convert"
)

// needSoffice skips a test without LibreOffice, or fails it when CI is
// set: scripts/test.sh installs it.
func needSoffice(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("soffice"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("soffice not found (CI is set, so this fails instead of skipping): %v", err)
		}
		t.Skip("soffice not found; install Debian's libreoffice-writer-nogui and libreoffice-calc-nogui")
	}
}

// TestLibreOfficeFallback converts an Excel 95 workbook, which keel's
// own converters refuse: without LibreOffice the error names it, with it
// the file's text comes back by the ods converter's rules.
func TestLibreOfficeFallback(t *testing.T) {
	in := convert.Input{Name: "ledger.xls", Data: excel95Workbook(t)}
	_, err := convert.Default().Convert(context.Background(), in)
	var fe *convert.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, convert.ErrNeedsLibreOffice) || !strings.Contains(err.Error(), "libreoffice") {
		t.Fatalf("Convert(ledger.xls) without LibreOffice: error = %v; want a *convert.FormatError matching ErrNeedsLibreOffice that names libreoffice", err)
	}
	needSoffice(t)
	reg := convert.Default().With(convert.LibreOffice(convert.LibreOfficeOptions{Timeout: 5 * time.Minute, TempDir: t.TempDir()}))
	res, err := reg.Convert(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Sheet \"Ledger\": 2 rows × 2 columns, cells A1:B2\nItem QZ95ITEM,Amount\nRent QZ95RENT,1250\n"
	if res.Kind != "libreoffice" || res.Text != want || !strings.HasSuffix(res.Description, "(read by LibreOffice)") {
		t.Errorf("Convert(ledger.xls) with LibreOffice = kind %q, description %q, text\n%s\nwant kind libreoffice, text\n%s", res.Kind, res.Description, res.Text, want)
	}
}

// TestLibreOfficeFormats converts a format only LibreOffice reads, a
// flat OpenDocument text, which it claims by extension.
func TestLibreOfficeFormats(t *testing.T) {
	needSoffice(t)
	reg := convert.Default().With(convert.LibreOffice(convert.LibreOfficeOptions{Timeout: 5 * time.Minute, TempDir: t.TempDir()}))
	res, err := reg.Convert(context.Background(), convert.Input{Name: "report.fodt", Data: corpusFile(t, "report.fodt")})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"# Quarterly report QZH1\n", "| North QZCELL | 1,204 | 1,310 |", "[^1]: Unaudited figures QZFOOTNOTE."} {
		if !strings.Contains(res.Text, w) {
			t.Errorf("Convert(report.fodt) text lacks %q:\n%s", w, res.Text)
		}
	}
}

func TestLibreOfficeMissing(t *testing.T) {
	lo := convert.LibreOffice(convert.LibreOfficeOptions{Path: filepath.Join(t.TempDir(), "soffice")})
	_, err := convert.Default().With(lo).Convert(context.Background(), convert.Input{Name: "letter.wpd", Data: []byte("\xffWPC")})
	var fe *convert.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, convert.ErrNeedsLibreOffice) || !strings.Contains(err.Error(), "apt-get install libreoffice") {
		t.Errorf("Convert(letter.wpd) with no soffice: error = %v; want a *convert.FormatError saying which packages to install", err)
	}
	_, err = convert.Default().Convert(context.Background(), convert.Input{Name: "letter.wpd", Data: []byte("\xffWPC")})
	if !errors.Is(err, convert.ErrUnsupported) || !errors.Is(err, convert.ErrNeedsLibreOffice) || !strings.Contains(err.Error(), "libreoffice") {
		t.Errorf("Convert(letter.wpd) without the LibreOffice converter: error = %v; want ErrUnsupported naming libreoffice", err)
	}
}

// TestLibreOfficeTimeout runs a stand-in for soffice that never ends and
// starts a child of its own, as soffice starts soffice.bin: at the
// timeout both are killed, and the error says so.
func TestLibreOfficeTimeout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a Unix idea; the timeout there kills the program alone")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	script := filepath.Join(dir, "soffice")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 300 &\necho $! > "+pidFile+"\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	lo := convert.LibreOffice(convert.LibreOfficeOptions{Path: script, Timeout: 500 * time.Millisecond, TempDir: dir})
	start := time.Now()
	_, err := convert.New(lo).Convert(context.Background(), convert.Input{Name: "letter.wpd", Data: []byte("x")})
	var fe *convert.FormatError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "did not finish within 500ms") {
		t.Errorf("Convert with a soffice that hangs: error = %v; want a *convert.FormatError about the timeout", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("Convert with a soffice that hangs took %v; the timeout is 500ms", took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the stand-in did not start its child: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	for i := 0; i < 50 && alive(pid); i++ {
		time.Sleep(20 * time.Millisecond) // the kill is sent; it takes effect
	}
	if alive(pid) {
		t.Errorf("the child of soffice (pid %d) outlived the timeout", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if entries, _ := filepath.Glob(filepath.Join(dir, "keel-libreoffice-*")); len(entries) > 0 {
		t.Errorf("the conversion's directory was left behind: %v", entries)
	}
}

// alive reports whether process pid runs: it exists and is not a zombie
// (an orphan killed but not yet reaped by init, which in a container may
// never reap it).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil && runtime.GOOS != "linux"
	}
	// The state follows the command's closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
