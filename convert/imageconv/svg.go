package imageconv

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// svgDoc is an SVG read and checked by this package before it is drawn:
// its size, its text, and a sanitized copy for the drawing library.
type svgDoc struct {
	// width and height are the intrinsic size in CSS pixels.
	width, height float64
	// clean is the SVG rewritten for drawing: elements by their local
	// names, without namespaces, comments, entities, scripts, and without
	// the subtrees the drawing library would draw wrongly (clip paths,
	// masks, markers, patterns, symbols) or cannot draw (text, images).
	clean []byte
	// text is the title, description and text content, for [Info].
	text string
	// texts counts the text elements and images the embedded pictures,
	// which are not drawn.
	texts, images int
}

// svgSkipped are the elements whose subtrees are not passed to the
// drawing library: it cannot draw them (text, image) or would draw their
// shapes as if they were visible (clipPath, mask, marker, pattern, symbol,
// which it does not understand but whose paths it would find).
var svgSkipped = map[string]bool{
	"text": true, "image": true, "foreignObject": true, "script": true, "metadata": true,
	"clipPath": true, "mask": true, "marker": true, "pattern": true, "symbol": true,
	"filter": true, "switch": true,
}

// maxSVGText caps the text kept for [Info.SVGText], in characters.
const maxSVGText = 2000

// readSVG reads and checks an SVG (or a gzipped one) and sets the header.
func (h *header) readSVG(data []byte, lim Limits) error {
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return formatErr(string(SVG), "gunzip", err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, lim.MaxInput+1))
		if err != nil {
			return formatErr(string(SVG), "gunzip", err)
		}
		if int64(len(data)) > lim.MaxInput {
			return limitErr(string(SVG), "unpacked bytes", lim.MaxInput, 0)
		}
	}
	doc, err := scanSVG(data, lim)
	if err != nil {
		return err
	}
	h.svg = doc
	h.info.SVGText = doc.text
	// The size as drawn: at least 1 pixel; the canvas is chosen when
	// drawing, within the target.
	h.width, h.height = max(1, int(math.Round(doc.width))), max(1, int(math.Round(doc.height)))
	if int64(h.width)*int64(h.height) > lim.MaxPixels {
		// A huge declared size is no reason to refuse a vector drawing:
		// it is drawn smaller. What matters is the canvas, which fits the
		// target.
		s := math.Sqrt(float64(lim.MaxPixels) / (doc.width * doc.height))
		h.width, h.height = max(1, int(doc.width*s)), max(1, int(doc.height*s))
	}
	return nil
}

// scanSVG checks an SVG and writes its clean copy. It refuses: a document
// type declaring entities (the "billion laughs" expands a few of them to
// gigabytes; encoding/xml would not expand them, but such a file is
// hostile or broken either way), nesting deeper than lim.MaxDepth, more
// than lim.MaxElements elements (counting those a <use> repeats), a
// <use> inside <defs> (uses of uses multiply; the drawing library follows
// them without a bound), and any reference to another file or URL: an
// href that is not "#id" or a data: URI, or a CSS url() or @import
// naming one. Nothing is ever fetched, so such a file could not be drawn
// as its author meant.
func scanSVG(data []byte, lim Limits) (*svgDoc, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = charset.NewReaderLabel
	doc := &svgDoc{}
	var out bytes.Buffer
	out.Grow(len(data))
	var stack []string
	skip := 0 // depth inside a skipped subtree, 0 outside one
	inDefs, elements, uses, defsElements := 0, 0, 0, 0
	var text strings.Builder
	textDepth := 0
	root := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, formatErr(string(SVG), "malformed XML", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			if bytes.Contains(t, []byte("ENTITY")) {
				return nil, formatErr(string(SVG), "the document type declares entities; such files are refused (entity expansion)", nil)
			}
		case xml.StartElement:
			name := t.Name.Local
			elements++
			if elements > lim.MaxElements {
				return nil, limitErr(string(SVG), "elements", int64(lim.MaxElements), 0)
			}
			stack = append(stack, name)
			if len(stack) > lim.MaxDepth {
				return nil, limitErr(string(SVG), "nesting depth", int64(lim.MaxDepth), 0)
			}
			if err := checkRefs(t); err != nil {
				return nil, err
			}
			if !root {
				if name != "svg" {
					return nil, formatErr(string(SVG), "the root element is <"+name+">, not <svg>", nil)
				}
				root = true
				if err := doc.size(t); err != nil {
					return nil, err
				}
			}
			switch name {
			case "text":
				doc.texts++
			case "image":
				doc.images++
			case "defs":
				inDefs++
			case "use":
				if inDefs > 0 {
					return nil, unsupported(string(SVG), "a <use> inside <defs> (references to references are not drawn)")
				}
				uses++
			}
			if inDefs > 0 {
				defsElements++
			}
			if name == "title" || name == "desc" || name == "text" {
				textDepth++
				if text.Len() > 0 {
					text.WriteByte('\n')
				}
			}
			if skip > 0 || svgSkipped[name] {
				skip++
				continue
			}
			writeStart(&out, t)
		case xml.EndElement:
			name := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch name {
			case "defs":
				inDefs--
			case "title", "desc", "text":
				textDepth--
			}
			if skip > 0 {
				skip--
				continue
			}
			out.WriteString("</" + name + ">")
		case xml.CharData:
			if textDepth > 0 && text.Len() < 4*maxSVGText {
				text.Write(bytes.Join(bytes.Fields(t), []byte(" ")))
			}
			if skip == 0 && len(stack) > 0 && stack[len(stack)-1] == "style" {
				if err := checkCSS(string(t)); err != nil {
					return nil, err
				}
				xml.EscapeText(&out, t)
			}
		}
	}
	if !root {
		return nil, formatErr(string(SVG), "no <svg> element", nil)
	}
	// Each <use> repeats what <defs> holds (the drawing library keys all
	// of a <defs> under its first child's id).
	if int64(uses)*int64(defsElements) > int64(lim.MaxElements) {
		return nil, limitErr(string(SVG), "elements repeated by <use>", int64(lim.MaxElements), int64(uses)*int64(defsElements))
	}
	doc.clean = out.Bytes()
	doc.text = cutText(text.String(), maxSVGText)
	return doc, nil
}

// writeStart writes a start tag by its local names, values escaped.
func writeStart(out *bytes.Buffer, t xml.StartElement) {
	out.WriteString("<" + t.Name.Local)
	for _, a := range t.Attr {
		if a.Name.Space == "xmlns" || a.Name.Local == "xmlns" {
			continue
		}
		out.WriteString(" " + a.Name.Local + `="`)
		xml.EscapeText(out, []byte(a.Value))
		out.WriteString(`"`)
	}
	out.WriteString(">")
}

// checkRefs refuses an element that refers to another file or a URL.
func checkRefs(t xml.StartElement) error {
	for _, a := range t.Attr {
		v := strings.TrimSpace(a.Value)
		switch {
		case a.Name.Local == "href" || a.Name.Local == "src":
			if v != "" && !strings.HasPrefix(v, "#") && !hasPrefixFold(v, "data:") {
				return external(v)
			}
		case strings.Contains(v, "url("):
			if err := checkCSS(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkCSS refuses CSS that imports or refers to another file or a URL.
func checkCSS(css string) error {
	lower := strings.ToLower(css)
	if strings.Contains(lower, "@import") {
		return external("@import")
	}
	for rest := lower; ; {
		i := strings.Index(rest, "url(")
		if i < 0 {
			return nil
		}
		rest = rest[i+4:]
		target := strings.TrimLeft(rest, " \t\r\n'\"")
		if !strings.HasPrefix(target, "#") && !strings.HasPrefix(target, "data:") {
			end := strings.IndexAny(target, ")'\"")
			if end < 0 {
				end = len(target)
			}
			return external(target[:end])
		}
	}
}

func external(ref string) error {
	return &UnsupportedError{Format: string(SVG), Feature: "a reference to another file or URL (" + strconv.Quote(cutText(ref, 80)) + "); nothing is fetched, so such a file is not drawn"}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// size reads the root's width, height and viewBox: the intrinsic size is
// width × height in CSS pixels, else the viewBox's, else 300 × 150 (CSS's
// default for a replaced element). A size given in percent is the
// viewBox's.
func (doc *svgDoc) size(t xml.StartElement) error {
	var w, h, vw, vh float64
	for _, a := range t.Attr {
		switch a.Name.Local {
		case "width":
			w = cssLength(a.Value)
		case "height":
			h = cssLength(a.Value)
		case "viewBox":
			f := strings.FieldsFunc(a.Value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
			if len(f) != 4 {
				return formatErr(string(SVG), "viewBox "+strconv.Quote(cutText(a.Value, 80))+" is not four numbers", nil)
			}
			var err error
			vw, err = strconv.ParseFloat(f[2], 64)
			if err == nil {
				vh, err = strconv.ParseFloat(f[3], 64)
			}
			if err != nil || !(vw > 0 && vh > 0) || math.IsInf(vw, 0) || math.IsInf(vh, 0) {
				return formatErr(string(SVG), "viewBox "+strconv.Quote(cutText(a.Value, 80))+" has no positive finite size", nil)
			}
		}
	}
	switch {
	case w > 0 && h > 0:
	case vw > 0 && w > 0:
		h = w * vh / vw
	case vw > 0 && h > 0:
		w = h * vw / vh
	case vw > 0:
		w, h = vw, vh
	default:
		w, h = 300, 150
	}
	if vw > 0 {
		// Drawn at the viewBox's proportions (the default
		// preserveAspectRatio, without the letterbox).
		h = w * vh / vw
	}
	if !(w >= 1e-3 && h >= 1e-3) || math.IsInf(w, 0) || math.IsInf(h, 0) || w/h > 1e4 || h/w > 1e4 {
		return formatErr(string(SVG), fmt.Sprintf("unusable size %g × %g", w, h), nil)
	}
	doc.width, doc.height = w, h
	return nil
}

// cssLength returns a CSS length in pixels (96 a inch); 0 for percentages
// and what does not parse.
func cssLength(s string) float64 {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		px     float64
	}{{"px", 1}, {"pt", 96.0 / 72}, {"pc", 16}, {"mm", 96 / 25.4}, {"cm", 96 / 2.54}, {"in", 96}, {"em", 16}, {"ex", 8}, {"%", 0}}
	mul := 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mul = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.px
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0
	}
	return v * mul
}

// cutText cuts s at n characters, at a character boundary.
func cutText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}
