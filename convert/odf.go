package convert

import (
	"context"
	"io"
	"slices"
	"strconv"
	"strings"
)

// odfFormat is the Format of an OpenDocument kind: its media types, each
// with its template's, and its extensions, recognised by the mimetype
// member.
func odfFormat(kind string, mimes []string, exts ...string) Format {
	var all []string
	for _, m := range mimes {
		all = append(all, m, m+"-template")
	}
	return Format{Kind: kind, MediaTypes: all, Extensions: exts, Sniff: odfSniff(all)}
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

// odfSniff reports whether the input is an OpenDocument package of one
// of the given media types: its "mimetype" member says so.
func odfSniff(mimes []string) func(*Input, Limits) bool {
	return func(in *Input, lim Limits) bool {
		return slices.Contains(mimes, odfMimetype(in, lim))
	}
}

// odfMimetype returns the content of the input's "mimetype" member, the
// media type of an OpenDocument package, or "" when it has none.
func odfMimetype(in *Input, lim Limits) string {
	if !zipHas(in, lim, "mimetype") {
		return ""
	}
	_, index, _ := in.zip(lim)
	f := index["mimetype"]
	if f.UncompressedSize64 > 256 {
		return ""
	}
	rc, err := openMember(f, newBudget(256))
	if err != nil {
		return ""
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// odfStyles holds what the styles of styles.xml and content.xml say:
// which list styles number their items (by level), which table or page
// styles hide what uses them, and what makes a paragraph style a
// heading. At most maxFormats of each are kept.
type odfStyles struct {
	ordered    map[string]map[int]bool
	hidden     map[string]bool
	hiddenText map[string]bool // text styles that hide their text (text:display="none")
	paras      map[string]odfParaStyle
	name       string // the style being read
	list       string // the list style being read
}

// odfParaStyle is what a paragraph style says about headings: its own
// outline level, or its name, or its parent's.
type odfParaStyle struct {
	parent, display string
	outline         int
}

func newODFStyles() *odfStyles {
	return &odfStyles{ordered: map[string]map[int]bool{}, hidden: map[string]bool{}, hiddenText: map[string]bool{}, paras: map[string]odfParaStyle{}}
}

// headingLevel returns the heading level a paragraph style gives: its
// default outline level, else a name "Heading N" (or "Title", level 1),
// else its parent's, so that a paragraph whose style is based on
// "Heading 1" is a heading too.
func (st *odfStyles) headingLevel(name string) int {
	for hops := 0; name != "" && hops < 16; hops++ {
		ps, ok := st.paras[name]
		if ok && ps.outline > 0 {
			return ps.outline
		}
		for _, n := range []string{ps.display, strings.ReplaceAll(name, "_20_", " ")} {
			if n == "Title" {
				return 1
			}
			if l, ok := strings.CutPrefix(n, "Heading "); ok {
				if v, err := strconv.Atoi(l); err == nil && v >= 1 && v <= 10 {
					return v
				}
			}
		}
		if !ok {
			return 0
		}
		name = ps.parent
	}
	return 0
}

// style reads a start tag inside office:automatic-styles or
// office:styles; it reports whether the tag was one of its own.
func (st *odfStyles) style(sc *xmlScanner) bool {
	switch {
	case sc.is(nsStyle, "style"):
		st.name = sc.attrString(nsStyle, "name")
		if sc.attrString(nsStyle, "family") == "paragraph" && len(st.paras) < maxFormats {
			level, _ := strconv.Atoi(sc.attrString(nsStyle, "default-outline-level"))
			st.paras[st.name] = odfParaStyle{parent: sc.attrString(nsStyle, "parent-style-name"), display: sc.attrString(nsStyle, "display-name"), outline: max(level, 0)}
		}
	case sc.is(nsStyle, "text-properties"):
		if sc.attrString(nsText, "display") == "none" && len(st.hiddenText) < maxFormats {
			st.hiddenText[st.name] = true
		}
	case sc.is(nsStyle, "table-properties"):
		if sc.attrString(nsTable, "display") == "false" && len(st.hidden) < maxFormats {
			st.hidden[st.name] = true
		}
	case sc.is(nsStyle, "drawing-page-properties"):
		if v := sc.attrString(nsPresentation, "visibility"); v == "hidden" && len(st.hidden) < maxFormats {
			st.hidden[st.name] = true
		}
	case sc.is(nsText, "list-style"):
		st.list = sc.attrString(nsStyle, "name")
		if len(st.ordered) >= maxFormats {
			st.list = ""
			break
		}
		st.ordered[st.list] = map[int]bool{}
	case sc.is(nsText, "list-level-style-number"):
		if n, err := strconv.Atoi(sc.attrString(nsText, "level")); err == nil && st.list != "" && n >= 1 && n <= 10 {
			st.ordered[st.list][n] = true
		}
	case sc.is(nsText, "list-level-style-bullet"):
	default:
		return false
	}
	return true
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
