package convert

import (
	"context"
	"path"
	"strings"
)

// rel is a relationship of an Office Open XML part.
type rel struct {
	id, typ, target string
	external        bool
}

// relsOf reads the relationships of part ("" for the package's own),
// in file order, with targets resolved to part names. A part without
// relationships has none; that is not an error.
func (p *pkg) relsOf(part string) ([]rel, error) {
	dir, base := path.Split(part)
	name := dir + "_rels/" + base + ".rels"
	if !p.has(name) {
		return nil, nil
	}
	var out []rel
	err := p.eachStart(name, func(sc *xmlScanner) error {
		if !sc.is(nsPkgRel, "Relationship") {
			return nil
		}
		r := rel{id: sc.attrString(nsNone, "Id"), typ: sc.attrString(nsNone, "Type"), target: sc.attrString(nsNone, "Target")}
		r.external = strings.EqualFold(sc.attrString(nsNone, "TargetMode"), "External")
		if !r.external {
			r.target = resolvePart(dir, r.target)
		}
		if len(out) >= p.lim.MaxEntries {
			return limitErr("", "relationships", int64(p.lim.MaxEntries))
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// resolvePart resolves a relationship target against the directory of
// its source part.
func resolvePart(dir, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return strings.TrimPrefix(path.Clean("/"+dir+target), "/")
}

// relType reports whether a relationship type URI ends with the given
// name, so that transitional and strict types both match.
func relType(typ, name string) bool { return strings.HasSuffix(typ, "/"+name) }

func relByID(rels []rel, id string) (rel, bool) {
	for _, r := range rels {
		if r.id == id {
			return r, true
		}
	}
	return rel{}, false
}

// openMain opens an Office Open XML package and returns it with its
// main part (the workbook, the document, the presentation; usual is
// where that normally is) and the main part's relationships.
func openMain(ctx context.Context, in *Input, lim Limits, usual string) (*pkg, string, []rel, error) {
	p, err := openPackage(ctx, in, lim)
	if err != nil {
		return nil, "", nil, err
	}
	main, err := p.mainPart(usual)
	if err != nil {
		return nil, "", nil, err
	}
	rels, err := p.relsOf(main)
	return p, main, rels, err
}

// mainPart returns the package's main part, falling back to its usual
// name.
func (p *pkg) mainPart(usual string) (string, error) {
	rels, err := p.relsOf("")
	if err != nil {
		return "", err
	}
	for _, r := range rels {
		if relType(r.typ, "officeDocument") && !r.external && p.has(r.target) {
			return r.target, nil
		}
	}
	if p.has(usual) {
		return usual, nil
	}
	return "", formatErr("", "the main part ("+usual+") is missing", nil)
}
