package convert_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
)

// needTool returns the path of a program the test needs; without it the
// test is skipped, or fails when CI is set (scripts/test.sh installs it).
func needTool(t testing.TB, name, debianPackage string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found (CI is set, so this fails instead of skipping): install Debian's %s", name, debianPackage)
		}
		t.Skipf("%s not found; install Debian's %s", name, debianPackage)
	}
	return p
}

// runTool runs a program with a time limit, failing the test on error.
func runTool(t testing.TB, dir string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func readOutput(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the tool wrote no %s: %v", filepath.Base(path), err)
	}
	return data
}

// libreOfficePDF converts testdata/pdf/report.fodt (CJK text, a table,
// a two-column section, a header and footer) with LibreOffice, using a
// profile of its own so that it runs beside any other instance.
func libreOfficePDF(t testing.TB) []byte {
	soffice := needTool(t, "soffice", "libreoffice-writer")
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/pdf/report.fodt")
	runTool(t, dir, soffice, "-env:UserInstallation=file://"+filepath.Join(dir, "profile"), "--headless", "--convert-to", "pdf", "--outdir", dir, src)
	return readOutput(t, filepath.Join(dir, "report.pdf"))
}

// chromiumPDF prints testdata/pdf/columns.html (CSS columns, a table,
// CJK text) to PDF with Chromium.
func chromiumPDF(t testing.TB) []byte {
	chromium := needTool(t, "chromium", "chromium")
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/pdf/columns.html")
	out := filepath.Join(dir, "columns.pdf")
	runTool(t, dir, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", "--user-data-dir="+filepath.Join(dir, "profile"), "--print-to-pdf="+out, "file://"+src)
	return readOutput(t, out)
}

// texPDF typesets testdata/pdf/paper.tex (two columns, a table) with
// pdflatex.
func texPDF(t testing.TB) []byte {
	pdflatex := needTool(t, "pdflatex", "texlive-latex-base")
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/pdf/paper.tex")
	runTool(t, dir, pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-output-directory", dir, src)
	return readOutput(t, filepath.Join(dir, "paper.pdf"))
}

// pdftotext returns poppler's text of a PDF (the peer the converter is
// measured against).
func pdftotext(t testing.TB, data []byte) string {
	bin := needTool(t, "pdftotext", "poppler-utils")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		t.Fatal(err)
	}
	runTool(t, dir, bin, "-enc", "UTF-8", in, filepath.Join(dir, "out.txt"))
	return string(readOutput(t, filepath.Join(dir, "out.txt")))
}

// words splits text into the words a reader compares: runs of letters
// and digits, and each ideograph, kana or hangul syllable on its own
// (CJK is written without spaces).
func words(text string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// wordShare is the share of the peer's words (counted with repeats)
// that text holds.
func wordShare(text, peer string) float64 {
	have := map[string]int{}
	for _, w := range words(text) {
		have[w]++
	}
	want := words(peer)
	if len(want) == 0 {
		return 1
	}
	found := 0
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
			found++
		}
	}
	return float64(found) / float64(len(want))
}
