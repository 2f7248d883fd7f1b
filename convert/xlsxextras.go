package convert

import (
	"strconv"
	"strings"
)

// sheetExtras are what a worksheet's relationships hold beside its
// cells: its comments (read when asked for) and its charts.
type sheetExtras struct {
	comments []string
	charts   []*chart
}

// readExtras reads the comments and charts of a worksheet part: comments
// from its comments part, charts from its drawing's relationships (a
// chart sheet's drawing too).
func (wb *workbook) readExtras(part string, comments bool) (sheetExtras, error) {
	var ex sheetExtras
	rels, err := wb.p.relsOf(part)
	if err != nil {
		return ex, err
	}
	for _, r := range rels {
		switch {
		case r.external || !wb.p.has(r.target):
		case relType(r.typ, "comments") && comments:
			if ex.comments, err = wb.readComments(r.target); err != nil {
				return ex, err
			}
		case relType(r.typ, "drawing"):
			drels, err := wb.p.relsOf(r.target)
			if err != nil {
				return ex, err
			}
			for _, d := range drels {
				if relType(d.typ, "chart") && !d.external && wb.p.has(d.target) && len(ex.charts) < maxFormats {
					ch, err := wb.p.readChart(d.target)
					if err != nil {
						return ex, err
					}
					ex.charts = append(ex.charts, ch)
				}
			}
		}
	}
	return ex, nil
}

// readComments reads a comments part: each comment as "B3: Bo: text",
// in the part's order, their text bounded like a paragraph's.
func (wb *workbook) readComments(part string) ([]string, error) {
	var authors, out []string
	left := keepBytes(wb.p.lim)
	var t textBuf
	err := wb.p.eachStart(part, func(sc *xmlScanner) error {
		switch {
		case sc.is(nsSML, "author") && len(authors) < maxFormats:
			t.reset(256)
			if err := sc.eachText(t.write); err != nil {
				return err
			}
			authors = append(authors, strings.TrimSpace(string(t.b)))
		case sc.is(nsSML, "comment"):
			ref := sc.attrString(nsNone, "ref")
			author := ""
			if i, err := strconv.Atoi(sc.attrString(nsNone, "authorId")); err == nil && i >= 0 && i < len(authors) {
				author = authors[i]
			}
			t.reset(max(left, 0))
			if err := richText(sc, func(p []byte) error { t.write(p); return nil }); err != nil {
				return err
			}
			text := strings.Join(strings.Fields(string(t.b)), " ")
			if text == "" || left <= 0 {
				return nil
			}
			left -= len(text)
			if author != "" && !strings.HasPrefix(text, author+":") {
				text = author + ": " + text
			}
			out = append(out, ref+": "+text)
		}
		return nil
	})
	return out, err
}

// writeCharts writes a sheet's charts after its cells, each as CSV under
// a line naming it.
func writeCharts(s *sink, charts []*chart) {
	for _, ch := range charts {
		rows := ch.rows()
		s.extra("\n# " + ch.heading() + "\n")
		var b strings.Builder
		for _, r := range rows {
			b.Reset()
			for i, c := range r {
				if i > 0 {
					b.WriteByte(',')
				}
				writeCSV(&b, c)
			}
			b.WriteByte('\n')
			s.unit(b.String())
		}
	}
}
