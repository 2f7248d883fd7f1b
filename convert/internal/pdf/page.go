package pdf

import (
	"bytes"
	"io"
)

// Page is a page of a document.
type Page struct {
	dict Dict
	res  Dict
}

// Pages returns the document's pages in order, walking the page tree
// with its inherited resources. Kids seen before (a tree that loops) are
// skipped; more than MaxPages pages is a *LimitError.
func (d *Document) Pages() ([]Page, error) {
	root := d.resolveDict(d.trailer["Root"])
	if root == nil {
		if d.objErr != nil {
			return nil, d.objErr
		}
		return nil, errorf("no document catalog")
	}
	var pages []Page
	seen := map[Ref]bool{}
	var walk func(o Object, res Dict, depth int) error
	walk = func(o Object, res Dict, depth int) error {
		if r, ok := o.(Ref); ok {
			if seen[r] {
				return nil
			}
			seen[r] = true
		}
		node := d.resolveDict(o)
		if node == nil || depth > d.lim.MaxDepth {
			return nil
		}
		if r := d.resolveDict(node["Resources"]); r != nil {
			res = r
		}
		kids, isTree := d.resolve(node["Kids"]).(Array)
		if !isTree || node["Type"] == Name("Page") {
			if len(pages) >= d.lim.MaxPages {
				return &LimitError{Limit: "pages", Max: int64(d.lim.MaxPages)}
			}
			pages = append(pages, Page{dict: node, res: res})
			return nil
		}
		for _, k := range kids {
			if err := walk(k, res, depth+1); err != nil {
				return err
			}
			if err := d.ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root["Pages"], nil, 0); err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		if d.objErr != nil {
			return nil, d.objErr
		}
		return nil, errorf("the document has no pages")
	}
	return pages, nil
}

// PageStats says what a page held.
type PageStats struct {
	// Glyphs counts the glyphs with text; Images the images drawn.
	Glyphs, Images int
}

// Text runs a page's content and calls line with each line of its text,
// in reading order; a nil line marks a gap between blocks (a paragraph,
// a column, a header). The slice is reused after line returns.
func (d *Document) Text(p Page, line func([]byte)) (PageStats, error) {
	var readers []io.Reader
	var one [1]*Stream
	streams := one[:0]
	switch c := d.resolve(p.dict["Contents"]).(type) {
	case *Stream:
		streams = append(streams, c)
	case Array:
		for _, o := range c {
			if s, ok := d.resolve(o).(*Stream); ok {
				streams = append(streams, s)
			}
		}
	}
	for _, s := range streams {
		// A stream this reader cannot decode draws nothing it can
		// read; one that does not decrypt makes the page's text
		// untrustworthy.
		r, err := d.open(s)
		if isFatal(err) {
			return PageStats{}, err
		}
		if err == nil {
			if len(readers) > 0 {
				// Streams of an array are one content: a token may not
				// run across their join.
				readers = append(readers, bytes.NewReader([]byte{'\n'}))
			}
			readers = append(readers, r)
		}
	}
	pb := &pageBuilder{out: line}
	in := &interp{d: d, page: pb, gs: gstate{ctm: identity, th: 1}, tm: identity, tlm: identity}
	err := in.run(in.streamLexer(io.MultiReader(readers...), 0), p.res, 0)
	pb.flush()
	return PageStats{Glyphs: pb.glyphs, Images: in.images}, err
}
