package convert

import (
	"bytes"
	"context"
	"path"
	"strconv"
	"strings"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"
)

// HTML returns the converter of HTML pages (.html, .htm, .xhtml) to
// Markdown: headings, paragraphs, lists, links, emphasis, code, quotes
// and tables; scripts, styles and the head left out; entities decoded.
// The charset is the one the media type, a byte order mark or a meta
// tag names, else UTF-8 or Windows-1252 as browsers guess.
func HTML() Converter { return htmlConverter{} }

type htmlConverter struct{}

func (htmlConverter) Format() Format {
	return Format{
		Kind:       "html",
		MediaTypes: []string{"text/html", "application/xhtml+xml"},
		Extensions: []string{".html", ".htm", ".xhtml", ".xht"},
		Sniff:      func(in *Input, _ Limits) bool { return looksLikeHTML(in.Data) },
	}
}

// looksLikeHTML reports whether data starts, after spaces, a byte order
// mark and comments, with a doctype or an html or head tag.
func looksLikeHTML(data []byte) bool {
	b := bytes.TrimLeft(bytes.TrimPrefix(data[:min(len(data), 1024)], []byte("\xef\xbb\xbf")), " \t\r\n")
	for bytes.HasPrefix(b, []byte("<!--")) {
		i := bytes.Index(b, []byte("-->"))
		if i < 0 {
			return false
		}
		b = bytes.TrimLeft(b[i+3:], " \t\r\n")
	}
	if bytes.HasPrefix(b, []byte("<?xml")) {
		if i := bytes.Index(b, []byte("?>")); i >= 0 {
			b = bytes.TrimLeft(b[i+2:], " \t\r\n")
		}
	}
	l := bytes.ToLower(b[:min(len(b), 15)])
	return bytes.HasPrefix(l, []byte("<!doctype html")) || bytes.HasPrefix(l, []byte("<html")) || bytes.HasPrefix(l, []byte("<head"))
}

func (htmlConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	enc, _, _ := charset.DetermineEncoding(in.Data, in.MediaType)
	s := newSink(lim.MaxChars, "paragraphs")
	out := &blocks{sink: s}
	w := newHTMLWriter(out, keepBytes(lim))
	if err := w.write(ctx, transform.NewReader(bytes.NewReader(in.Data), enc.NewDecoder()), lim); err != nil {
		return nil, err
	}
	desc := "HTML page"
	if t := strings.Join(strings.Fields(string(w.title.b)), " "); t != "" {
		desc += " " + strconv.Quote(t)
	}
	return &Result{Kind: "html", As: "Markdown", Description: desc + ", " + out.describe(), Text: s.text(), Omitted: s.omit}, nil
}

// EPUB returns the converter of e-books (.epub) to Markdown: the book's
// title and authors, then each document of its spine in reading order,
// as [HTML] converts them.
func EPUB() Converter { return epubConverter{} }

type epubConverter struct{}

func (epubConverter) Format() Format {
	return Format{
		Kind:       "epub",
		MediaTypes: []string{"application/epub+zip"},
		Extensions: []string{".epub"},
		Sniff: func(in *Input, lim Limits) bool {
			return odfMimetype(in, lim) == "application/epub+zip" || zipHas(in, lim, "META-INF/container.xml") && zipHas(in, lim, "mimetype")
		},
	}
}

func (epubConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	p, err := openPackage(ctx, in, lim)
	if err != nil {
		return nil, err
	}
	// META-INF/container.xml names the package document (the OPF).
	opf := ""
	if err := p.eachStart("META-INF/container.xml", func(sc *xmlScanner) error {
		if string(sc.local) == "rootfile" && opf == "" {
			opf = strings.TrimPrefix(sc.attrString(nsNone, "full-path"), "/")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if opf == "" || !p.has(opf) {
		return nil, formatErr("", "the package document the container names is missing", nil)
	}
	book, err := p.readOPF(opf)
	if err != nil {
		return nil, err
	}
	s := newSink(lim.MaxChars, "paragraphs")
	out := &blocks{sink: s}
	if book.title != "" {
		out.paragraph(1, book.title)
	}
	if len(book.authors) > 0 {
		out.paragraph(0, "By "+strings.Join(book.authors, ", "))
	}
	dir := path.Dir(opf)
	var w *htmlWriter
	p.watch(func() bool { return s.full || w != nil && w.dropped() })
	for _, href := range book.spine {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := resolvePart(dir+"/", href)
		if !p.has(part) {
			continue
		}
		rc, err := p.open(part)
		if err != nil {
			return nil, err
		}
		w = newHTMLWriter(out, keepBytes(lim))
		err = w.write(ctx, rc, lim)
		rc.Close()
		if err != nil {
			return nil, withPart(href, err)
		}
	}
	desc := "e-book"
	if book.title != "" {
		desc += " " + strconv.Quote(book.title)
	}
	desc += ", " + plural(len(book.spine), "chapter") + ", " + atLeast(p.stopped(), out.describe())
	return &Result{Kind: "epub", As: "Markdown", Description: desc, Text: s.text(), Omitted: s.omitted(p.stopped())}, nil
}

// epubBook is what the package document says: the title, the authors,
// and the spine's documents in reading order.
type epubBook struct {
	title   string
	authors []string
	spine   []string
}

// readOPF reads a package document: its metadata and the spine, whose
// items refer to the manifest by ID.
func (p *pkg) readOPF(name string) (*epubBook, error) {
	b := &epubBook{}
	manifest := map[string]string{}
	var idrefs []string
	var t textBuf
	err := p.eachStart(name, func(sc *xmlScanner) error {
		switch string(sc.local) {
		case "title", "creator":
			local := string(sc.local)
			t.reset(1024)
			if err := sc.eachText(t.write); err != nil {
				return err
			}
			v := strings.Join(strings.Fields(string(t.b)), " ")
			switch {
			case v == "":
			case local == "title" && b.title == "":
				b.title = v
			case local == "creator" && len(b.authors) < 16:
				b.authors = append(b.authors, v)
			}
		case "item":
			if len(manifest) >= p.lim.MaxEntries {
				return limitErr("", "manifest items", int64(p.lim.MaxEntries))
			}
			mt := sc.attrString(nsNone, "media-type")
			if strings.Contains(mt, "html") {
				manifest[sc.attrString(nsNone, "id")] = sc.attrString(nsNone, "href")
			}
		case "itemref":
			if sc.attrString(nsNone, "linear") != "no" && len(idrefs) < p.lim.MaxEntries {
				idrefs = append(idrefs, sc.attrString(nsNone, "idref"))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, id := range idrefs {
		if href, ok := manifest[id]; ok {
			b.spine = append(b.spine, href)
		}
	}
	return b, nil
}
