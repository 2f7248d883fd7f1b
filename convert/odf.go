package convert

import (
	"context"
	"io"
	"strconv"
	"strings"
)

// odfFormat is the Format of an OpenDocument kind: its media type, the
// template's, and its extensions, recognised by the mimetype member.
func odfFormat(kind, mime string, exts ...string) Format {
	return Format{Kind: kind, MediaTypes: []string{mime, mime + "-template"}, Extensions: exts, Sniff: odfSniff(mime)}
}

// openContent opens an OpenDocument package and its content.xml; the
// caller closes the returned closer.
func openContent(ctx context.Context, in *Input, lim Limits) (*pkg, *xmlScanner, io.Closer, error) {
	p, err := openPackage(ctx, in, lim)
	if err != nil {
		return nil, nil, nil, err
	}
	sc, c, err := p.scan("content.xml")
	if err != nil {
		return nil, nil, nil, err
	}
	return p, sc, c, nil
}

// odfSniff reports whether the input is an OpenDocument package of the
// given media type: its "mimetype" member says so.
func odfSniff(mime string) func(*Input, Limits) bool {
	return func(in *Input, lim Limits) bool {
		if !zipHas(in, lim, "mimetype") {
			return false
		}
		_, index, _ := in.zip(lim)
		f := index["mimetype"]
		if f.UncompressedSize64 > 256 {
			return false
		}
		rc, err := openMember(f, newBudget(256))
		if err != nil {
			return false
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return err == nil && strings.TrimSpace(string(b)) == mime
	}
}

// odfStyles holds what the automatic styles of content.xml say: which
// list styles number their items (by level) and which table or page
// styles hide what uses them.
type odfStyles struct {
	ordered map[string]map[int]bool
	hidden  map[string]bool
	name    string // the style being read
	list    string // the list style being read
}

func newODFStyles() *odfStyles {
	return &odfStyles{ordered: map[string]map[int]bool{}, hidden: map[string]bool{}}
}

// style reads a start tag inside office:automatic-styles or
// office:styles; it reports whether the tag was one of its own.
func (st *odfStyles) style(sc *xmlScanner) bool {
	switch {
	case sc.is(nsStyle, "style"):
		st.name = sc.attrString(nsStyle, "name")
	case sc.is(nsStyle, "table-properties"):
		if sc.attrString(nsTable, "display") == "false" {
			st.hidden[st.name] = true
		}
	case sc.is(nsStyle, "drawing-page-properties"):
		if v := sc.attrString(nsPresentation, "visibility"); v == "hidden" {
			st.hidden[st.name] = true
		}
	case sc.is(nsText, "list-style"):
		st.list = sc.attrString(nsStyle, "name")
		st.ordered[st.list] = map[int]bool{}
	case sc.is(nsText, "list-level-style-number"):
		if n, err := strconv.Atoi(sc.attrString(nsText, "level")); err == nil && st.list != "" {
			st.ordered[st.list][n] = true
		}
	case sc.is(nsText, "list-level-style-bullet"):
	default:
		return false
	}
	return true
}

// odfText appends the text of the paragraph or heading whose start tag
// was just read to t: spans and links as their text, text:s as its
// spaces, tabs and line breaks; notes and annotations are left out.
func odfText(sc *xmlScanner, t *textBuf) error {
	d := sc.depth()
	for {
		k, ok, err := sc.inside(d)
		if !ok {
			return err
		}
		switch {
		case k == tokText:
			t.write(sc.text)
		case k != tokStart:
		case sc.is(nsText, "s"):
			n, err := strconv.Atoi(sc.attrString(nsText, "c"))
			if err != nil || n < 1 {
				n = 1
			}
			t.writeString(strings.Repeat(" ", min(n, 1024)))
		case sc.is(nsText, "tab"):
			t.writeString("\t")
		case sc.is(nsText, "line-break"):
			t.writeString("\n")
		case sc.is(nsText, "a"):
			href := sc.attrString(nsXLink, "href")
			at := t.len()
			if err := odfText(sc, t); err != nil {
				return err
			}
			if inner := t.b[at:]; href != "" && t.lost == 0 && strings.TrimSpace(string(inner)) != "" && !strings.HasPrefix(href, "#") {
				linked := "[" + string(inner) + "](" + href + ")"
				t.b = t.b[:at]
				t.writeString(linked)
			}
		case sc.is(nsText, "note"), sc.is(nsOffice, "annotation"), sc.is(nsText, "bookmark-ref"):
			if err := sc.skip(); err != nil {
				return err
			}
		}
	}
}

// odfRepeat reads a repetition count attribute, 1 by default, at most
// maxRepeat: callers never loop over a count, they clamp it to the sheet
// or count it in one step.
func odfRepeat(sc *xmlScanner, local string) int {
	v, ok := sc.attr(nsTable, local)
	if !ok {
		return 1
	}
	n, err := strconv.Atoi(string(v))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, maxRepeat)
}

const maxRepeat = 1 << 30
