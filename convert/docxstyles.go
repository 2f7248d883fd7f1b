package convert

import (
	"strconv"
	"strings"
)

// docxStyle is what a paragraph style says about structure.
type docxStyle struct {
	name, basedOn string
	outline       int // outline level + 1; 0 for none
	numID, ilvl   string
}

// docxStyles reads word/styles.xml: paragraph styles by ID, up to
// [Limits].MaxStyles styles; the rest of the part is not read.
func (p *pkg) docxStyles(name string) (map[string]docxStyle, error) {
	out := map[string]docxStyle{}
	if name == "" || !p.has(name) {
		return out, nil
	}
	sc, c, err := p.scan(name)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var id string
	var cur docxStyle
	read := 0
	for {
		k, err := sc.next()
		if err != nil {
			return nil, err
		}
		switch {
		case k == tokEOF:
			return out, nil
		case k == tokEnd && sc.is(nsWML, "style"):
			if id != "" {
				out[id] = cur
			}
			id = ""
		case k != tokStart:
		case sc.is(nsWML, "style"):
			if read++; read > p.lim.MaxStyles {
				return out, nil
			}
			id, cur = "", docxStyle{}
			if sc.attrString(nsWML, "type") == "paragraph" {
				id = sc.attrString(nsWML, "styleId")
			}
		case sc.is(nsWML, "name"):
			cur.name = strings.ToLower(sc.attrString(nsWML, "val"))
		case sc.is(nsWML, "basedOn"):
			cur.basedOn = sc.attrString(nsWML, "val")
		case sc.is(nsWML, "outlineLvl"):
			if n, err := strconv.Atoi(sc.attrString(nsWML, "val")); err == nil && n >= 0 && n < 9 {
				cur.outline = n + 1
			}
		case sc.is(nsWML, "numId"):
			cur.numID = sc.attrString(nsWML, "val")
		case sc.is(nsWML, "ilvl"):
			cur.ilvl = sc.attrString(nsWML, "val")
		}
	}
}

// headingLevel returns the heading level of a paragraph style: "Title"
// and "heading N" by name (as Word names its built-in styles whatever
// the language shown), else an outline level, following basedOn.
func headingLevel(styles map[string]docxStyle, id string) int {
	for hops := 0; id != "" && hops < 16; hops++ {
		st, ok := styles[id]
		if !ok {
			break
		}
		if st.name == "title" {
			return 1
		}
		if n, ok := strings.CutPrefix(st.name, "heading "); ok {
			if l, err := strconv.Atoi(n); err == nil && l >= 1 && l <= 9 {
				return l
			}
		}
		if st.outline > 0 {
			return st.outline
		}
		id = st.basedOn
	}
	return 0
}

// styleNumbering returns the list numbering a paragraph style carries,
// following basedOn.
func styleNumbering(styles map[string]docxStyle, id string) (numID, ilvl string) {
	for hops := 0; id != "" && hops < 16; hops++ {
		st, ok := styles[id]
		if !ok {
			break
		}
		if st.numID != "" {
			return st.numID, st.ilvl
		}
		id = st.basedOn
	}
	return "", ""
}

// docxLevel is one level of a list definition.
type docxLevel struct {
	ordered bool
	start   int
}

// docxNumbering reads word/numbering.xml: for each list (numId), its
// levels. Lists and their definitions count as styles: past
// [Limits].MaxStyles of them, the rest of the part is not read.
func (p *pkg) docxNumbering(name string) (map[string]map[int]docxLevel, error) {
	out := map[string]map[int]docxLevel{}
	if name == "" || !p.has(name) {
		return out, nil
	}
	abstract := map[string]map[int]docxLevel{}
	nums := map[string]string{}
	var absID, numID string
	lvl, read := -1, 0
	err := p.eachStart(name, func(sc *xmlScanner) error {
		if sc.is(nsWML, "abstractNum") || sc.is(nsWML, "num") {
			if read++; read > p.lim.MaxStyles {
				return errEnough
			}
		}
		switch {
		case sc.is(nsWML, "abstractNum"):
			absID, numID = sc.attrString(nsWML, "abstractNumId"), ""
			abstract[absID] = map[int]docxLevel{}
		case sc.is(nsWML, "lvl") && absID != "":
			lvl, _ = strconv.Atoi(sc.attrString(nsWML, "ilvl"))
			if lvl < 0 || lvl > 8 {
				lvl = -1
				break
			}
			abstract[absID][lvl] = docxLevel{ordered: true, start: 1}
		case sc.is(nsWML, "start") && absID != "" && lvl >= 0:
			l := abstract[absID][lvl]
			l.start, _ = strconv.Atoi(sc.attrString(nsWML, "val"))
			abstract[absID][lvl] = l
		case sc.is(nsWML, "numFmt") && absID != "" && lvl >= 0:
			l := abstract[absID][lvl]
			f := sc.attrString(nsWML, "val")
			l.ordered = f != "bullet" && f != "none"
			abstract[absID][lvl] = l
		case sc.is(nsWML, "num"):
			absID, lvl = "", -1
			numID = sc.attrString(nsWML, "numId")
		case sc.is(nsWML, "abstractNumId") && numID != "":
			nums[numID] = sc.attrString(nsWML, "val")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for n, a := range nums {
		if levels, ok := abstract[a]; ok {
			out[n] = levels
		}
	}
	return out, nil
}
