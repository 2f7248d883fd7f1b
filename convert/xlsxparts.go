package convert

import (
	"path"
	"strconv"
)

// load reads the workbook's sheet list, shared strings and styles from
// its main part.
func (wb *workbook) load(main string, rels []rel) error {
	if err := wb.readWorkbook(main, rels); err != nil {
		return err
	}
	dir := path.Dir(main) + "/"
	sst, styles := dir+"sharedStrings.xml", dir+"styles.xml"
	for _, r := range rels {
		switch {
		case relType(r.typ, "sharedStrings"):
			sst = r.target
		case relType(r.typ, "styles"):
			styles = r.target
		}
	}
	wb.sst = newStringTable(wb.p.lim, 0)
	if wb.p.has(sst) {
		wb.sst = newStringTable(wb.p.lim, wb.p.index[partKey(sst)].UncompressedSize64)
		if err := wb.readSharedStrings(sst); err != nil {
			return err
		}
	}
	if wb.p.has(styles) {
		return wb.readStyles(styles)
	}
	return nil
}

func (wb *workbook) readWorkbook(main string, rels []rel) error {
	return wb.p.eachStart(main, func(sc *xmlScanner) error {
		switch {
		case sc.is(nsSML, "workbookPr"):
			v := sc.attrString(nsNone, "date1904")
			wb.date1904 = v == "1" || v == "true"
		case sc.is(nsSML, "sheet"):
			if len(wb.sheets) >= wb.p.lim.MaxSheets {
				return limitErr("", "sheets", int64(wb.p.lim.MaxSheets))
			}
			state := sc.attrString(nsNone, "state")
			sh := wbSheet{name: sc.attrString(nsNone, "name"), hidden: state == "hidden" || state == "veryHidden"}
			r, ok := relByID(rels, sc.attrString(nsRel, "id"))
			if !ok || r.external || !wb.p.has(r.target) {
				return formatErr("", "the part of sheet "+strconv.Quote(sh.name)+" is missing", nil)
			}
			sh.part = r.target
			sh.chart = !relType(r.typ, "worksheet")
			wb.sheets = append(wb.sheets, sh)
		}
		return nil
	})
}

// readSharedStrings reads the shared string table.
func (wb *workbook) readSharedStrings(name string) error {
	return wb.p.eachStart(name, func(sc *xmlScanner) error {
		if !sc.is(nsSML, "si") {
			return nil
		}
		item := wb.sst.start()
		err := richText(sc, func(p []byte) error {
			for len(item)+len(p) > cap(item) {
				var ok bool
				if item, ok = wb.sst.more(item); !ok {
					return wb.sst.limitErr()
				}
			}
			item = append(item, p...)
			return nil
		})
		if err != nil {
			return err
		}
		return wb.sst.end(item)
	})
}

// richText gives write the text of the string item (si, is) whose start
// tag was just read, run by run, without the phonetic guides (rPh) of
// East Asian text; it stops at write's first error.
func richText(sc *xmlScanner, write func([]byte) error) error {
	d := sc.depth()
	for {
		k, ok, err := sc.inside(d)
		if !ok {
			return err
		}
		switch {
		case k != tokStart:
		case sc.is(nsSML, "rPh"), sc.is(nsSML, "phoneticPr"):
			if err := sc.skip(); err != nil {
				return err
			}
		case sc.is(nsSML, "t"):
			if err := sc.eachTextErr(write); err != nil {
				return err
			}
		}
	}
}

// maxFormats bounds the number of things of one kind a reader keeps
// that the file may repeat without end (charts, comment authors, notes)
// and the formats of a legacy workbook.
const maxFormats = 1 << 16

// xfFormat is how a cell format shows numbers: as a date or time, or by
// a number format (nil for General).
type xfFormat struct {
	kind numKind
	num  *numFormat
}

// show writes v as the format shows it: a date or time as ISO 8601, a
// number as its format writes it, followed by the stored value in
// brackets when the format rounds it (rounded says so): 34.7% [0.3471].
// ok is false when the format does not apply: v is shown as stored.
func (f xfFormat) show(v float64, date1904 bool) (s string, rounded, ok bool) {
	if f.kind != numPlain {
		s, ok = serialTime(v, date1904, f.kind)
		return s, false, ok
	}
	if f.num == nil {
		return "", false, false
	}
	raw := strconv.FormatFloat(v, 'g', -1, 64)
	s, lossy, ok := f.num.format(v, raw)
	if lossy {
		s += " [" + raw + "]"
	}
	return s, lossy && ok, ok
}

func compileFormat(code string) xfFormat {
	f := xfFormat{kind: formatNumKind(code)}
	if f.kind == numPlain {
		f.num = parseNumFormat(code)
	}
	return f
}

// builtinFormat returns a built-in number format; the compiled ones are
// shared by every workbook.
func builtinFormat(id int) xfFormat {
	if k := builtinNumKind(id); k != numPlain {
		return xfFormat{kind: k}
	}
	return xfFormat{num: builtinFormats[id]}
}

var builtinFormats = func() map[int]*numFormat {
	m := map[int]*numFormat{}
	for id, code := range builtinFormatCodes {
		m[id] = parseNumFormat(code)
	}
	return m
}()

// readStyles reads how each cell format shows numbers: the number
// formats (numFmts) and the cell formats (cellXfs), which come first in
// the part, up to [Limits].MaxStyles of each. Past that, or at the end
// of the cell formats, the rest of the part is not read: a cell whose
// format is not read shows its number as stored, and its sheet's heading
// says so (wb.stylesCut).
func (wb *workbook) readStyles(name string) error {
	sc, c, err := wb.p.scan(name)
	if err != nil {
		return err
	}
	defer c.Close()
	custom := map[int]xfFormat{}
	inXfs := false
	numFmts := 0
	for {
		k, ok, err := sc.inside(0)
		if !ok {
			return err
		}
		switch k {
		case tokStart:
			switch {
			case sc.is(nsSML, "numFmt"):
				if numFmts++; numFmts > wb.p.lim.MaxStyles {
					// The cell formats come after: none is read.
					wb.stylesCut = true
					return nil
				}
				id, _ := strconv.Atoi(sc.attrString(nsNone, "numFmtId"))
				custom[id] = compileFormat(sc.attrString(nsNone, "formatCode"))
			case sc.is(nsSML, "cellXfs"):
				inXfs = true
			case inXfs && sc.is(nsSML, "xf"):
				if len(wb.xfs) >= wb.p.lim.MaxStyles {
					wb.stylesCut = true
					return nil
				}
				id, _ := strconv.Atoi(sc.attrString(nsNone, "numFmtId"))
				f, ok := custom[id]
				if !ok {
					f = builtinFormat(id)
				}
				wb.xfs = append(wb.xfs, f)
			}
		case tokEnd:
			if sc.is(nsSML, "cellXfs") {
				// Nothing after the cell formats says how numbers show.
				return nil
			}
		}
	}
}
