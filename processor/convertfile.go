package processor

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/keel-go/keel/convert"
	"github.com/keel-go/keel/internal/cleantext"
)

// FileConverter turns a file into text a model reads. A *convert.Registry
// is one (convert.Default() holds keel's converters); its Limits cap each
// file's text. Implementations must be safe for concurrent use and must
// not modify the input's data.
type FileConverter interface {
	Convert(ctx context.Context, in convert.Input) (*convert.Result, error)
}

// maxLabelFacts caps the description and form shown in a text's label.
const maxLabelFacts = 1000

// conversion is a file converted for a run: its result, nil when no
// converter knew the file or the converter failed.
type conversion struct {
	res   *convert.Result
	chars int // runes of res.Text
}

// withConversion gives the model more than the sandbox's note or the
// placeholder for a refused file pf: for an image, the image as the model
// can read it or what can be said of it (see imagefile.go); else, when a
// converter knows the file, its text. It returns the warning to log in
// place of warning: without a sandbox, the text is all a model can get.
func (h *UnsupportedFileHandler) withConversion(ctx context.Context, req *LLMRequest, st *unsupportedFileState, pf *promptFile, rep *replacement, warning string) string {
	if !pf.part.IsInline() || pf.err != nil {
		return warning
	}
	if h.withImage(ctx, req, st, pf, rep) {
		if warning == noSandboxWarning {
			return ""
		}
		return warning
	}
	if h.converters == nil {
		return warning
	}
	conv := convertCached(ctx, h.converters, &st.texts, pf, func(err error) {
		warnRefusedFile(req.Run, "file the model refused could not be converted to text; sent without its text", pf.name, err)
	})
	if conv.res == nil {
		return warning
	}
	rep.withText(pf.name, conv)
	switch warning {
	case "", noSandboxWarning:
		return ""
	}
	return "file the model refused not uploaded to the sandbox; its text sent"
}

// withText puts conv's text, labelled, after rep's note, or in place of
// the placeholder, which would say the file is unavailable; nothing when
// no converter knew the file.
func (r *replacement) withText(name string, conv conversion) {
	if conv.res == nil {
		return
	}
	if r.file.Outcome == OutcomePlaceholder {
		r.texts = nil
	}
	r.texts = append(r.texts, conv.label(name, r.file.Path))
	r.file.Outcome, r.file.Conversion = OutcomeConverted, conv.report()
}

// convertCached converts pf (inline, decoded) with converters once per
// content, keeping the result in *cache; warn is told of a converter's
// failure (not of a file no converter knows).
func convertCached(ctx context.Context, converters FileConverter, cache *map[string]conversion, pf *promptFile, warn func(error)) conversion {
	if c, ok := (*cache)[pf.sum]; ok {
		return c
	}
	res, err := converters.Convert(ctx, convert.Input{Name: pf.filename, MediaType: pf.part.MediaType, Data: pf.data})
	var c conversion
	switch {
	case err == nil && res != nil:
		c = conversion{res: res, chars: utf8.RuneCountInString(res.Text)}
	case err == nil, errors.Is(err, convert.ErrUnsupported):
		// No converter knows the file: the note or placeholder alone, as
		// without converters.
	case ctx.Err() != nil:
		return c // the run is ending; nothing learned about the file
	default:
		warn(err)
	}
	setIn(cache, pf.sum, c)
	return c
}

// label is the text the model gets for the file, under its label:
//
//	[Text of leads.xlsx — sheet "Leads", 1,204 rows × 9 columns, as CSV]
//	# Sheet "Leads": 1,204 rows × 9 columns, cells A1:I1204
//	...
//	[The text stops here: 53210 more characters (1000 rows) were left out. The whole file is at /home/user/uploads/t1/….xlsx in the sandbox.]
//
// The last line comes only when the cap cut the text; it gives the path
// only when the file was uploaded (path not "").
func (c conversion) label(name, path string) string {
	var b strings.Builder
	b.Grow(len(c.res.Text) + 200)
	b.WriteString("[Text of ")
	b.WriteString(displayOf(name))
	if d := cleantext.Line(c.res.Description, maxLabelFacts); d != "" {
		b.WriteString(" — ")
		b.WriteString(d)
	}
	if as := cleantext.Line(c.res.As, maxLabelFacts); as != "" {
		b.WriteString(", as ")
		b.WriteString(as)
	}
	b.WriteString("]\n")
	b.WriteString(strings.TrimRight(c.res.Text, "\n"))
	if o := c.res.Omitted; o.Any() {
		b.WriteString("\n[The text stops here: ")
		atLeast := ""
		if o.AtLeast {
			// The converter stopped reading: the rest was not counted.
			atLeast = "at least "
		}
		b.WriteString(atLeast + count(o.Chars, "more character"))
		if unit := cleantext.Line(o.Unit, maxLabelFacts); o.Units > 0 && unit != "" {
			b.WriteString(" (" + atLeast)
			b.WriteString(count(o.Units, strings.TrimSuffix(unit, "s")))
			b.WriteString(")")
		}
		if o.Chars == 1 && !o.AtLeast {
			b.WriteString(" was left out.")
		} else {
			b.WriteString(" were left out.")
		}
		if path != "" {
			b.WriteString(" The whole file is at ")
			b.WriteString(path)
			b.WriteString(" in the sandbox.")
		}
		b.WriteString("]")
	}
	return b.String()
}

// count is "1 row", "2 rows".
func count(n int, noun string) string {
	s := strconv.Itoa(n) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// report describes the conversion in a [Recovery].
func (c conversion) report() *Conversion {
	out := &Conversion{Kind: c.res.Kind, As: c.res.As, Description: c.res.Description, Chars: c.chars}
	if o := c.res.Omitted; o.Any() {
		out.OmittedChars, out.OmittedUnits, out.Unit, out.OmittedAtLeast = o.Chars, o.Units, o.Unit, o.AtLeast
	}
	return out
}
