package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/keel-go/keel/convert/internal/limit"
)

// LibreOfficeOptions configure [LibreOffice].
type LibreOfficeOptions struct {
	// Path is the soffice program; "" looks for soffice, then
	// libreoffice, on PATH.
	Path string
	// Timeout bounds one conversion, LibreOffice's start included; 0
	// means 60 s. When it passes, LibreOffice and every process it
	// started are killed.
	Timeout time.Duration
	// TempDir holds each conversion's files and LibreOffice profile,
	// removed when it ends; "" means the system's temporary directory.
	TempDir string
}

// LibreOffice returns a converter that has LibreOffice, headless, turn
// a file keel's own converters do not read into OpenDocument, then
// converts that by [ODT], [ODS] or [ODP]'s rules. It takes what no
// built-in reads (WordPerfect, Works, Publisher, Visio, Apple iWork,
// StarOffice and OpenOffice.org 1 files, Lotus 1-2-3, dBase, Excel
// binary workbooks, flat OpenDocument XML) and, in a [Registry] that
// holds it, every file a built-in refuses with an error matching
// [ErrNeedsLibreOffice] (Word 95, Excel 5, encrypted legacy files).
//
// It is not in [Default]: it runs a program, which a caller decides to
// allow (keel serve and keel run do when soffice is installed). Each
// conversion runs in a directory of its own, with a LibreOffice profile
// of its own (-env:UserInstallation), so that conversions neither share
// state nor wait for one another's lock; in a process group of its own,
// killed whole when the timeout passes; and its output is read only up
// to [Limits].MaxInput. Without soffice, Convert fails with a
// [*FormatError] matching ErrNeedsLibreOffice that says which package
// to install.
func LibreOffice(opts LibreOfficeOptions) Converter {
	limit.Default(&opts.Timeout, 60*time.Second)
	return libreOffice{opts: opts}
}

type libreOffice struct {
	opts LibreOfficeOptions
}

// loFamilies says what each format LibreOffice takes is: a text
// document, a spreadsheet or a presentation, which decides the
// OpenDocument kind it is turned into.
var loFamilies = map[string]string{
	".wpd": "text", ".wps": "text", ".pub": "text", ".lwp": "text", ".hwp": "text", ".abw": "text",
	".zabw": "text", ".cwk": "text", ".mw": "text", ".mcw": "text", ".602": "text", ".pages": "text",
	".sxw": "text", ".stw": "text", ".sdw": "text", ".fodt": "text", ".wri": "text",
	".sxc": "spreadsheet", ".stc": "spreadsheet", ".sdc": "spreadsheet", ".fods": "spreadsheet",
	".xlsb": "spreadsheet", ".wk1": "spreadsheet", ".wks": "spreadsheet", ".123": "spreadsheet",
	".dbf": "spreadsheet", ".numbers": "spreadsheet", ".dif": "spreadsheet", ".slk": "spreadsheet",
	".sxi": "presentation", ".sti": "presentation", ".sdd": "presentation", ".fodp": "presentation",
	".key": "presentation",
	".vsd": "drawing", ".vsdx": "drawing", ".vdx": "drawing", ".sxd": "drawing", ".sda": "drawing",
	".fodg": "drawing", ".cdr": "drawing",
}

// loMediaTypes are media types of those formats.
var loMediaTypes = map[string]string{
	"application/vnd.wordperfect": "text", "application/wordperfect": "text", "application/vnd.ms-works": "text",
	"application/x-mspublisher": "text", "application/vnd.ms-publisher": "text", "application/vnd.lotus-wordpro": "text",
	"application/vnd.apple.pages": "text", "application/vnd.sun.xml.writer": "text",
	"application/vnd.oasis.opendocument.text-flat-xml":      "text",
	"application/vnd.ms-excel.sheet.binary.macroenabled.12": "spreadsheet", "application/vnd.lotus-1-2-3": "spreadsheet",
	"application/vnd.apple.numbers": "spreadsheet", "application/vnd.sun.xml.calc": "spreadsheet", "application/dbase": "spreadsheet",
	"application/x-dbase": "spreadsheet", "application/vnd.oasis.opendocument.spreadsheet-flat-xml": "spreadsheet",
	"application/vnd.apple.keynote": "presentation", "application/vnd.sun.xml.impress": "presentation",
	"application/vnd.oasis.opendocument.presentation-flat-xml": "presentation",
	"application/vnd.visio": "drawing", "application/vnd.ms-visio.drawing": "drawing", "application/vnd.sun.xml.draw": "drawing",
}

func (l libreOffice) Format() Format {
	f := Format{Kind: "libreoffice"}
	for ext := range loFamilies {
		f.Extensions = append(f.Extensions, ext)
	}
	for mt := range loMediaTypes {
		f.MediaTypes = append(f.MediaTypes, mt)
	}
	slices.Sort(f.Extensions)
	slices.Sort(f.MediaTypes)
	return f
}

// family says what kind of document the input is, for the OpenDocument
// kind to turn it into.
func (l libreOffice) family(in *Input, lim Limits) string {
	if fam := loMediaTypes[in.mediaType()]; fam != "" {
		return fam
	}
	if fam := loFamilies[in.Ext()]; fam != "" {
		return fam
	}
	switch {
	case cfbHas(in, lim, "Workbook"), cfbHas(in, lim, "Book"):
		return "spreadsheet"
	case cfbHas(in, lim, "PowerPoint Document"):
		return "presentation"
	case cfbHas(in, lim, "VisioDocument"):
		return "drawing"
	}
	return "text"
}

// soffice finds the program.
func (l libreOffice) soffice() (string, error) {
	if l.opts.Path != "" {
		return exec.LookPath(l.opts.Path)
	}
	for _, name := range []string{"soffice", "libreoffice"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("soffice is not on PATH")
}

// loNotInstalled is the error when LibreOffice cannot be run.
func loNotInstalled(err error) error {
	return formatErr("libreoffice", "LibreOffice is not installed (Debian and Ubuntu: apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui libreoffice-draw-nogui)", errors.Join(ErrNeedsLibreOffice, err))
}

func (l libreOffice) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	prog, err := l.soffice()
	if err != nil {
		return nil, loNotInstalled(err)
	}
	fam := l.family(in, lim)
	target, conv := "odt", ODT()
	switch fam {
	case "spreadsheet":
		target, conv = "ods", ODS()
	case "presentation":
		target, conv = "odp", ODP()
	case "drawing":
		target, conv = "odg", Zip() // a drawing's text, listed as the zip converter does
	}
	dir, err := os.MkdirTemp(l.opts.TempDir, "keel-libreoffice-")
	if err != nil {
		return nil, fmt.Errorf("convert: libreoffice: %w", err)
	}
	defer os.RemoveAll(dir)
	ext := in.Ext()
	if ext == "" || strings.ContainsAny(ext, `/\`) {
		ext = ".bin"
	}
	src := filepath.Join(dir, "file"+ext)
	if err := os.WriteFile(src, in.Data, 0o600); err != nil {
		return nil, fmt.Errorf("convert: libreoffice: %w", err)
	}
	out := filepath.Join(dir, "out")
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog,
		"-env:UserInstallation=file://"+filepath.ToSlash(filepath.Join(dir, "profile")),
		"--headless", "--norestore", "--nolockcheck", "--nodefault", "--nologo",
		"--convert-to", target, "--outdir", out, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	var logs boundedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	inGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	killGroup(cmd) // anything it left behind
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
			return nil, formatErr("libreoffice", fmt.Sprintf("LibreOffice did not finish within %v", l.opts.Timeout), err)
		}
		return nil, parent.Err()
	}
	result := filepath.Join(out, "file."+target)
	st, err := os.Stat(result)
	if err != nil {
		why := strings.TrimSpace(logs.String())
		if runErr != nil {
			why = strings.TrimSpace(runErr.Error() + ": " + why)
		}
		return nil, formatErr("libreoffice", "LibreOffice could not read the file", errors.New(why))
	}
	if st.Size() > lim.MaxInput {
		return nil, limitErr("libreoffice", "input bytes", lim.MaxInput)
	}
	data, err := os.ReadFile(result)
	if err != nil {
		return nil, fmt.Errorf("convert: libreoffice: %w", err)
	}
	res, err := conv.Convert(parent, &Input{Name: "file." + target, Data: data, opts: in.opts}, lim)
	if err != nil {
		return nil, withKind("libreoffice", err)
	}
	res.Kind = "libreoffice"
	res.Description += " (read by LibreOffice)"
	return res, nil
}

// boundedBuffer keeps the first 16 KiB written to it: LibreOffice's
// messages, for an error.
type boundedBuffer struct{ b bytes.Buffer }

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if room := 16<<10 - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (w *boundedBuffer) String() string { return w.b.String() }
