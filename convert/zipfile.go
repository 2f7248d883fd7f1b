package convert

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
)

var (
	zipLocalMagic = []byte("PK\x03\x04")
	zipEmptyMagic = []byte("PK\x05\x06")
	zipDirMagic   = []byte("PK\x01\x02")
)

func isZip(data []byte) bool {
	return bytes.HasPrefix(data, zipLocalMagic) || bytes.HasPrefix(data, zipEmptyMagic)
}

// zip parses the input's zip directory once, for every converter that
// sniffs or reads it.
func (in *Input) zip(lim Limits) (*zip.Reader, map[string]*zip.File, error) {
	if !in.zrSet {
		in.zrSet = true
		in.zr, in.zrErr = openZipReader(in.Data, lim)
		if in.zrErr == nil {
			in.zindex = make(map[string]*zip.File, len(in.zr.File))
			for _, f := range in.zr.File {
				key := partKey(f.Name)
				if _, dup := in.zindex[key]; !dup {
					in.zindex[key] = f
				}
			}
		}
	}
	return in.zr, in.zindex, in.zrErr
}

// openZipReader parses a zip directory after bounding its entries: every
// directory header starts with a signature, so counting the signatures
// bounds the entries before the directory is parsed and allocated,
// whatever the end record declares.
func openZipReader(data []byte, lim Limits) (*zip.Reader, error) {
	if !isZip(data) {
		return nil, formatErr("", "not a zip archive ("+describeContent(data)+")", nil)
	}
	if bytes.Count(data, zipDirMagic) > lim.MaxEntries {
		return nil, limitErr("", "archive entries", int64(lim.MaxEntries))
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, formatErr("", "corrupt or truncated zip archive", err)
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, limitErr("", "archive entries", int64(lim.MaxEntries))
	}
	return zr, nil
}

// partKey is the lookup key of a zip entry: package part names are
// compared without case and without a leading slash.
func partKey(name string) string {
	return strings.ToLower(strings.TrimPrefix(strings.ReplaceAll(name, `\`, "/"), "/"))
}

// budget counts the bytes a conversion may still inflate and, once the
// cap has cut the text, the bytes it may still read only to count what
// was left out ([Limits].MaxMeasured).
type budget struct {
	left, max int64

	// cut reports whether the text is known to be cut (set by the
	// converter, see [pkg.watch]); it is asked before each read until it
	// says so. From then on reading goes on down to stopAt bytes left,
	// measure bytes later, and then stops for good: every read returns
	// errStopped.
	cut     func() bool
	measure int64
	isCut   bool
	stopAt  int64
	stopped bool
}

func newBudget(max int64) *budget { return &budget{left: max, max: max} }

// errStopped is what a part's reader returns once reading has stopped
// past the cap. It never leaves a converter: the XML scanner ends the
// part there, closing the elements open, and the converter says in its
// [Result] that its counts are lower bounds.
var errStopped = errors.New("convert: reading stopped past the cap")

// reader returns r, failing with a [*LimitError] once more bytes than the
// budget's remainder come out of it: never more than one byte past the
// limit is read.
func (b *budget) reader(r io.Reader) io.Reader { return &budgetReader{r: r, b: b} }

// check notes the cut and reports whether reading has stopped.
func (b *budget) check() bool {
	if !b.isCut && b.cut != nil && b.cut() {
		// Past the cut, reading stops at the limit rather than failing:
		// what the text shows is already read.
		b.isCut, b.stopAt = true, max(b.left-b.measure, 0)
	}
	if b.isCut && b.left <= b.stopAt {
		b.stopped = true
	}
	return b.stopped
}

type budgetReader struct {
	r io.Reader
	b *budget
}

func (br *budgetReader) Read(p []byte) (int, error) {
	b := br.b
	if b.check() {
		return 0, errStopped
	}
	room := b.left + 1
	if b.isCut {
		room = b.left - b.stopAt
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := br.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, limitErr("", "unpacked bytes", b.max)
	}
	return n, err
}

// pkg is an opened zip package (Office Open XML or OpenDocument) with the
// budget its parts are read under.
type pkg struct {
	ctx    context.Context
	lim    Limits
	index  map[string]*zip.File
	budget *budget
	tokens int // XML tokens read so far, all parts together
}

func openPackage(ctx context.Context, in *Input, lim Limits) (*pkg, error) {
	_, index, err := in.zip(lim)
	if err != nil {
		return nil, err
	}
	b := newBudget(lim.MaxUnpacked)
	b.measure = lim.MaxMeasured
	return &pkg{ctx: ctx, lim: lim, index: index, budget: b}, nil
}

// watch sets what tells whether the text is cut: the converter's sink
// being full, or one of the paragraphs, cells, tables, sheets or slides
// it gathers before writing them having dropped text (each keeps at most
// [keepBytes], more than the cap shows). It is asked between reads, and
// replaced as the converter moves from one part to the next; once it has
// said yes, the cut stays noted.
func (p *pkg) watch(cut func() bool) { p.budget.cut = cut }

// stopped reports whether reading stopped past the cap: parts were read
// in part or not at all, and what was left out is counted only in part.
func (p *pkg) stopped() bool { return p.budget.stopped }

func (p *pkg) has(name string) bool { _, ok := p.index[partKey(name)]; return ok }

// open opens a part. A part whose declared size exceeds what is left of
// the budget is refused before it is inflated; one that lies about its
// size is stopped by the budget (and by archive/zip, which checks the
// declared size) while it is. Once the text is cut, none is refused:
// reading stops before the budget runs out.
func (p *pkg) open(name string) (io.ReadCloser, error) {
	f, ok := p.index[partKey(name)]
	if !ok {
		return nil, formatErr("", "the part "+name+" is missing", nil)
	}
	return openMember(f, p.budget)
}

func openMember(f *zip.File, b *budget) (io.ReadCloser, error) {
	if f.UncompressedSize64 > uint64(b.left) && !b.isCut {
		return nil, limitErr("", "unpacked bytes", b.max)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, formatErr("", "cannot open the archive member "+f.Name, err)
	}
	return &memberReader{name: f.Name, r: b.reader(rc), c: rc}, nil
}

// memberReader turns the errors of a corrupt member into a
// [*FormatError].
type memberReader struct {
	name string
	r    io.Reader
	c    io.Closer
}

func (m *memberReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if err != nil && err != io.EOF && err != errStopped && !errors.Is(err, ErrLimit) {
		err = formatErr("", "corrupt archive member "+m.name, err)
	}
	return n, err
}

func (m *memberReader) Close() error { return m.c.Close() }

// scan opens a part for XML scanning; the caller closes the returned
// closer.
func (p *pkg) scan(name string) (*xmlScanner, io.Closer, error) {
	rc, err := p.open(name)
	if err != nil {
		return nil, nil, err
	}
	return newXMLScanner(p.ctx, rc, p.lim, &p.tokens), rc, nil
}

// errEnough ends [pkg.eachStart] early, without an error: fn has read
// what it wants of the part.
var errEnough = errors.New("convert: enough of the part read")

// eachStart scans a part and calls fn at each start tag, up to the end of
// the part or fn's first error; errEnough ends it with none.
func (p *pkg) eachStart(name string, fn func(sc *xmlScanner) error) error {
	sc, c, err := p.scan(name)
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		k, ok, err := sc.inside(0)
		if !ok {
			return err
		}
		if k == tokStart {
			if err := fn(sc); err == errEnough {
				return nil
			} else if err != nil {
				return err
			}
		}
	}
}
