// Command pdfbakeoff compares PDF text readers on the same files: the
// share of pdftotext's words each one's text holds, whether it reads two
// columns in order, its time and memory, and what it does with hostile
// files. scripts/pdfbakeoff.sh builds the files and runs it; docs/pdf.md
// has its results.
//
//	pdfbakeoff -dir DIR          # every file of DIR with every reader, a Markdown table
//	pdfbakeoff -lib NAME FILE    # one reader on one file (the driver runs each so)
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/metrics"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/keel-go/keel/convert"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	ledong "github.com/ledongthuc/pdf"
	pdfcpuapi "github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

var libs = []string{"keel", "ledongthuc", "pdfcpu", "pdfium"}

func keel(data []byte) (string, error) {
	lim := convert.New().WithLimits(convert.Limits{MaxChars: 1 << 30}).Limits()
	res, err := convert.PDF().Convert(context.Background(), &convert.Input{Name: "x.pdf", Data: data}, lim)
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// ledongthuc reads rows as the library groups them (GetTextByRow), words
// joined by spaces.
func ledongthuc(data []byte) (string, error) {
	r, err := ledong.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		rows, err := p.GetTextByRow()
		if err != nil {
			return b.String(), err
		}
		for _, row := range rows {
			for j, w := range row.Content {
				if j > 0 {
					b.WriteString(" ")
				}
				b.WriteString(w.S)
			}
			b.WriteString("\n")
		}
	}
	return b.String(), nil
}

// pdfcpu has no text extraction: its ExtractContent gives each page's
// content stream. The strings shown by Tj and TJ are taken from it as
// bytes: what pdfcpu offers before a text layer of one's own.
var shown = regexp.MustCompile(`\((?:[^()\\]|\\.)*\)`)

func pdfcpu(data []byte) (string, error) {
	var b strings.Builder
	err := pdfcpuapi.ExtractContent(bytes.NewReader(data), nil, func(r io.Reader, page int) error {
		var buf bytes.Buffer
		buf.ReadFrom(r)
		for _, line := range strings.Split(buf.String(), "\n") {
			if !strings.HasSuffix(strings.TrimSpace(line), "Tj") && !strings.HasSuffix(strings.TrimSpace(line), "TJ") {
				continue
			}
			for _, s := range shown.FindAllString(line, -1) {
				b.WriteString(s[1 : len(s)-1])
			}
			b.WriteString("\n")
		}
		return nil
	}, nil)
	return b.String(), err
}

// pdfium runs PDFium compiled to WebAssembly under wazero, its compiled
// module cached in PDFIUM_CACHE (a cold start compiles 5.8 MB of wasm).
func pdfium(data []byte) (string, error) {
	cfg := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
	if dir := os.Getenv("PDFIUM_CACHE"); dir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return "", err
		}
		cfg = cfg.WithCompilationCache(cache)
	}
	start := time.Now()
	pool, err := webassembly.Init(webassembly.Config{MinIdle: 1, MaxIdle: 1, MaxTotal: 1, RuntimeConfig: cfg, FSConfig: wazero.NewFSConfig()})
	if err != nil {
		return "", err
	}
	defer pool.Close()
	inst, err := pool.GetInstance(120 * time.Second)
	if err != nil {
		return "", err
	}
	defer inst.Close()
	fmt.Fprintf(os.Stderr, "STARTUP %v\n", time.Since(start))
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		return "", err
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	n, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i := 0; i < n.PageCount; i++ {
		res, err := inst.GetPageText(&requests.GetPageText{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc.Document, Index: i}}})
		if err != nil {
			return b.String(), err
		}
		b.WriteString(res.Text)
		b.WriteString("\n")
	}
	return b.String(), nil
}

// one runs a reader on a file and prints its text, then a RESULT line
// on stderr with its time, peak heap and peak resident memory.
func one(lib, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	}()
	runtime.GC()
	start := time.Now()
	var text string
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		switch lib {
		case "keel":
			text, err = keel(data)
		case "ledongthuc":
			text, err = ledongthuc(data)
		case "pdfcpu":
			text, err = pdfcpu(data)
		case "pdfium":
			text, err = pdfium(data)
		}
	}()
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Print(text)
	msg := "ok"
	if err != nil {
		msg = strings.ReplaceAll(err.Error(), "\n", " ")
		if len(msg) > 90 {
			msg = msg[:90] + "…"
		}
	}
	fmt.Fprintf(os.Stderr, "RESULT\t%.1f\t%.1f\t%.1f\t%s\n", elapsed.Seconds()*1000, float64(peak)/(1<<20), float64(ru.Maxrss)/1024, msg)
}

// order lists, for each corpus file, markers in reading order.
var order = map[string][]string{
	"report.pdf":  {"PAGEONEMARK", "TABLEMARK", "PAGETWOMARK", "LEFTSTART", "LEFTEND", "RIGHTSTART", "RIGHTEND", "AFTERCOLS"},
	"columns.pdf": {"HTMLTITLEMARK", "COLONESTART", "COLONEEND", "COLTWOSTART", "COLTWOEND", "HTMLTABLEMARK", "HTMLPAGETWOMARK"},
	"paper.pdf":   {"TEXTITLEMARK", "TEXLEFTSTART", "TEXLEFTEND", "TEXTABLEMARK", "TEXRIGHTSTART", "TEXRIGHTEND"},
	"form.pdf":    {"PAGETEXT", "FORMMARK", "NESTEDFORMMARK", "PAGETEXT"},
}

func inOrder(text string, marks []string) string {
	at := 0
	for _, m := range marks {
		i := strings.Index(text[at:], m)
		if i < 0 {
			if strings.Contains(text, m) {
				return "no (" + m + " early)"
			}
			return "no (" + m + " missing)"
		}
		at += i + len(m)
	}
	return "yes"
}

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

func share(text, peer string) float64 {
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

type run struct {
	text             string
	ms, heap, rss    float64
	status           string
	timedOut, killed bool
}

func runOne(self, lib, path string, timeout time.Duration) run {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "-lib", lib, path)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := run{text: out.String()}
	for _, line := range strings.Split(errb.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "RESULT\t"); ok {
			f := strings.SplitN(rest, "\t", 4)
			fmt.Sscan(f[0], &r.ms)
			fmt.Sscan(f[1], &r.heap)
			fmt.Sscan(f[2], &r.rss)
			r.status = f[3]
		}
	}
	switch {
	case ctx.Err() != nil:
		r.status, r.timedOut = fmt.Sprintf("no answer in %v", timeout), true
	case r.status == "" && err != nil:
		r.status, r.killed = "crashed: "+lastLine(errb.String()), true
	}
	return r
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := lines[0]
	if len(l) > 80 {
		l = l[:80] + "…"
	}
	return l
}

func pdftotext(args ...string) string {
	out, err := exec.Command("pdftotext", args...).Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func main() {
	lib := flag.String("lib", "", "run one reader on one file")
	dir := flag.String("dir", "", "compare every reader on every file of this directory")
	only := flag.String("libs", strings.Join(libs, ","), "readers to compare")
	flag.Parse()
	if *lib != "" {
		one(*lib, flag.Arg(0))
		return
	}
	self, _ := os.Executable()
	files, _ := filepath.Glob(filepath.Join(*dir, "*.pdf"))
	sort.Strings(files)
	chosen := strings.Split(*only, ",")
	fmt.Println("| file | reader | words of pdftotext | words of pdftotext -layout | reading order | time ms | peak heap MiB | max RSS MiB | result |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, f := range files {
		base := filepath.Base(f)
		hostile := strings.HasPrefix(base, "hostile-")
		plain := pdftotext("-enc", "UTF-8", f, "-")
		layout := pdftotext("-enc", "UTF-8", "-layout", f, "-")
		for _, l := range chosen {
			timeout := 120 * time.Second
			r := runOne(self, l, f, timeout)
			sh, shl, ord := "", "", ""
			if !hostile && !r.timedOut && !r.killed {
				sh = fmt.Sprintf("%.1f%%", 100*share(r.text, plain))
				shl = fmt.Sprintf("%.1f%%", 100*share(r.text, layout))
				if marks, ok := order[base]; ok {
					ord = inOrder(r.text, marks)
				}
			}
			if hostile && r.status == "ok" {
				r.status = fmt.Sprintf("text (%d chars)", len([]rune(r.text)))
			}
			fmt.Printf("| %s | %s | %s | %s | %s | %.0f | %.1f | %.1f | %s |\n", base, l, sh, shl, ord, r.ms, r.heap, r.rss, strings.ReplaceAll(r.status, "|", "/"))
		}
	}
}
