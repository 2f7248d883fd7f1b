package convert

import (
	"strconv"
	"strings"
)

// chart is what an Office chart part (DrawingML, as Excel, Word,
// PowerPoint and LibreOffice write it) says in words: its title and its
// series, with the values the part caches beside the formulas that
// produced them. A chart is shown as a small table, categories down and
// series across, so that a model reads the numbers behind the bars.
type chart struct {
	title  string
	cats   []string
	series []chartSeries
}

type chartSeries struct {
	name string
	vals []string
	// The ranges the series comes from, said when the part caches no
	// values (excelize writes none).
	nameRef, valRef string
}

// Bounds of what a chart keeps: a chart of more points than a table can
// show is cut here, and the cap cuts the table again.
const (
	maxChartSeries = 256
	maxChartPoints = 4096
)

// readChart reads a chart part.
func (p *pkg) readChart(part string) (*chart, error) {
	sc, c, err := p.scan(part)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ch := &chart{}
	var cur *chartSeries
	where := "" // tx, cat, val: which part of a series is being read
	var title textBuf
	title.reset(4096)
	inTitle, titleDepth := false, 0
	idx := -1
	for {
		k, ok, err := sc.inside(0)
		if !ok {
			return ch, err
		}
		switch k {
		case tokStart:
			switch {
			case sc.is(nsChart, "title") && cur == nil && ch.title == "" && !inTitle && len(ch.series) == 0:
				inTitle, titleDepth = true, sc.depth()
			case inTitle && sc.is(nsDML, "t"):
				if title.len() > 0 {
					title.writeString(" ")
				}
				if err := sc.eachText(title.write); err != nil {
					return nil, err
				}
			case sc.is(nsChart, "ser"):
				if len(ch.series) >= maxChartSeries {
					if err := sc.skip(); err != nil {
						return nil, err
					}
					continue
				}
				ch.series = append(ch.series, chartSeries{})
				cur = &ch.series[len(ch.series)-1]
			case cur != nil && (sc.is(nsChart, "tx") || sc.is(nsChart, "cat") || sc.is(nsChart, "xVal")):
				where = "cat"
				if sc.is(nsChart, "tx") {
					where = "tx"
				}
			case cur != nil && (sc.is(nsChart, "val") || sc.is(nsChart, "yVal")):
				where = "val"
			case cur != nil && sc.is(nsChart, "pt"):
				idx, _ = strconv.Atoi(sc.attrString(nsNone, "idx"))
			case cur != nil && sc.is(nsChart, "v") && where != "":
				var v textBuf
				v.reset(1024)
				if err := sc.eachText(v.write); err != nil {
					return nil, err
				}
				ch.point(cur, where, idx, strings.TrimSpace(string(v.b)))
			case cur != nil && sc.is(nsChart, "f") && (where == "tx" || where == "val"):
				var f textBuf
				f.reset(256)
				if err := sc.eachText(f.write); err != nil {
					return nil, err
				}
				if where == "tx" {
					cur.nameRef = string(f.b)
				} else {
					cur.valRef = string(f.b)
				}
			case cur != nil && sc.is(nsChart, "f"), sc.is(nsChart, "extLst"), sc.is(nsChart, "txPr"), sc.is(nsChart, "spPr"):
				if err := sc.skip(); err != nil {
					return nil, err
				}
			}
		case tokEnd:
			switch {
			case inTitle && sc.depth() < titleDepth:
				inTitle = false
				ch.title = strings.Join(strings.Fields(string(title.b)), " ")
			case sc.is(nsChart, "ser"):
				cur, where = nil, ""
			case sc.is(nsChart, "tx"), sc.is(nsChart, "cat"), sc.is(nsChart, "val"), sc.is(nsChart, "xVal"), sc.is(nsChart, "yVal"):
				where = ""
			}
		}
	}
}

// point records a value of a series: its name, a category or a value at
// index idx (the cached points may skip empty ones).
func (ch *chart) point(s *chartSeries, where string, idx int, v string) {
	if where == "tx" {
		s.name = v
		return
	}
	if idx < 0 || idx >= maxChartPoints {
		return
	}
	list := &s.vals
	if where == "cat" {
		list = &ch.cats
	}
	for len(*list) <= idx {
		*list = append(*list, "")
	}
	(*list)[idx] = v
}

// rows returns the chart as a table: a header of the series' names, then
// a row per category.
func (ch *chart) rows() [][]string {
	n := len(ch.cats)
	for _, s := range ch.series {
		n = max(n, len(s.vals))
	}
	if n == 0 || len(ch.series) == 0 {
		return nil
	}
	head := []string{"Category"}
	if len(ch.cats) == 0 {
		head[0] = "Point"
	}
	for i, s := range ch.series {
		name := s.name
		if name == "" {
			name = "Series " + strconv.Itoa(i+1)
		}
		head = append(head, name)
	}
	out := [][]string{head}
	for i := 0; i < n; i++ {
		row := make([]string, 0, len(head))
		if i < len(ch.cats) {
			row = append(row, ch.cats[i])
		} else {
			row = append(row, strconv.Itoa(i+1))
		}
		for _, s := range ch.series {
			v := ""
			if i < len(s.vals) {
				v = s.vals[i]
			}
			row = append(row, v)
		}
		out = append(out, row)
	}
	return out
}

// heading is the line naming a chart, with where its series come from
// when the part caches no values.
func (ch *chart) heading() string {
	h := "Chart"
	if ch.title != "" {
		h += ": " + ch.title
	}
	if ch.rows() != nil {
		return h
	}
	var refs []string
	for _, s := range ch.series {
		name := s.name
		if name == "" {
			name = s.nameRef
		}
		if s.valRef != "" {
			refs = append(refs, strings.TrimSpace(name+" from "+s.valRef))
		}
	}
	if len(refs) > 0 {
		h += " (series: " + strings.Join(refs, "; ") + ")"
	}
	return h
}

// write writes the chart as a paragraph naming it and a table.
func (ch *chart) write(w blockWriter, keep int) {
	rows := ch.rows()
	if rows == nil && ch.title == "" {
		return
	}
	w.paragraph(0, ch.heading())
	if rows == nil {
		return
	}
	t := newTableRows(keep)
	for _, r := range rows {
		t.startRow()
		for _, c := range r {
			t.cell(c, 0)
		}
		t.endRow()
	}
	w.table(t)
}
