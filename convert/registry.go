package convert

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Registry chooses a [Converter] for a file and runs it. A Registry is
// immutable: [Registry.With], [Registry.Without] and [Registry.WithLimits]
// return new ones, so one value serves any number of goroutines.
//
// The zero value has no converters and the default [Limits].
type Registry struct {
	convs  []Converter
	limits Limits
}

// New returns a registry of the given converters, in that order, with
// the default limits. The order settles ties: when two converters
// recognise the same content, the first wins.
func New(convs ...Converter) *Registry {
	r := &Registry{}
	for _, c := range convs {
		r.convs = replaceOrAppend(r.convs, c)
	}
	return r
}

// Default returns a registry of the built-in converters, with the default
// limits: xlsx (and xlsm), docx, pptx, ods, odt, odp, eml, rtf, pdf, zip,
// tar (and tar.gz), and text under a non-text media type, tried in that
// order when the content decides.
func Default() *Registry {
	return New(XLSX(), DOCX(), PPTX(), ODS(), ODT(), ODP(), EML(), RTF(), PDF(), Zip(), Tar(), Text())
}

func replaceOrAppend(convs []Converter, c Converter) []Converter {
	kind := c.Format().Kind
	for i, have := range convs {
		if have.Format().Kind == kind {
			convs[i] = c
			return convs
		}
	}
	return append(convs, c)
}

// With returns a copy of r that also holds convs. A converter replaces
// the one of the same kind in place; a converter of a new kind goes
// before the others, so that it wins when its content is also recognised
// by a built-in (a zip-based format before "zip").
func (r *Registry) With(convs ...Converter) *Registry {
	out := &Registry{convs: slices.Clone(r.convs), limits: r.limits}
	for _, c := range convs {
		kind := c.Format().Kind
		if slices.ContainsFunc(out.convs, func(h Converter) bool { return h.Format().Kind == kind }) {
			out.convs = replaceOrAppend(out.convs, c)
		} else {
			out.convs = append([]Converter{c}, out.convs...)
		}
	}
	return out
}

// Without returns a copy of r without the converters of the given kinds.
func (r *Registry) Without(kinds ...string) *Registry {
	out := &Registry{limits: r.limits}
	for _, c := range r.convs {
		if !slices.Contains(kinds, c.Format().Kind) {
			out.convs = append(out.convs, c)
		}
	}
	return out
}

// WithLimits returns a copy of r that converts with lim; zero fields take
// their defaults.
func (r *Registry) WithLimits(lim Limits) *Registry {
	return &Registry{convs: slices.Clone(r.convs), limits: lim}
}

// Limits returns the registry's limits, defaults filled in.
func (r *Registry) Limits() Limits { return r.limits.withDefaults() }

// Converters returns the registry's converters in order.
func (r *Registry) Converters() []Converter { return slices.Clone(r.convs) }

// Convert converts in with the converter its media type names, else its
// extension, else its content. The content is checked either way: a file
// whose content another converter recognises goes to that one (a docx
// sent as application/zip), and a file whose content is not what its name
// or type claims gets a [*FormatError] (a PNG named .xlsx) rather than
// being parsed. A file no converter knows gets an error matching
// [ErrUnsupported].
//
// Errors are a [*FormatError], a [*LimitError] (matching [ErrLimit]), an
// error matching [ErrUnsupported], or the context's error. A converter
// that panics is reported as a [*FormatError]; the panic does not cross
// Convert.
func (r *Registry) Convert(ctx context.Context, in Input) (res *Result, err error) {
	lim := r.Limits()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if int64(len(in.Data)) > lim.MaxInput {
		return nil, limitErr(kindOf(&in), "input bytes", lim.MaxInput)
	}
	c, err := r.choose(&in, lim)
	if err != nil {
		return nil, err
	}
	kind := c.Format().Kind
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, formatErr(kind, fmt.Sprintf("converter failed on this file (panic: %v)", p), nil)
		}
	}()
	res, err = c.Convert(ctx, &in, lim)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, fmt.Errorf("convert: %s: %w", kind, err)
		}
		return nil, withKind(kind, err)
	}
	if res.Kind == "" {
		res.Kind = kind
	}
	return res, nil
}

// kindOf names a file for an error raised before a converter is chosen.
func kindOf(in *Input) string {
	if ext := in.Ext(); ext != "" {
		return ext[1:]
	}
	return "file"
}

// choose picks the converter: the one claiming the media type or else the
// extension, if the content agrees, unless a converter earlier in the
// order recognises the content; else the first that recognises it.
func (r *Registry) choose(in *Input, lim Limits) (Converter, error) {
	claim := -1
	if mt := in.mediaType(); mt != "" {
		claim = slices.IndexFunc(r.convs, func(c Converter) bool { return slices.Contains(c.Format().MediaTypes, mt) })
	}
	if ext := in.Ext(); claim < 0 && ext != "" {
		claim = slices.IndexFunc(r.convs, func(c Converter) bool { return slices.Contains(c.Format().Extensions, ext) })
	}
	claimOK := false
	if claim >= 0 {
		sniff := r.convs[claim].Format().Sniff
		claimOK = sniff == nil || sniff(in, lim)
	}
	for i, c := range r.convs {
		if claimOK && i == claim {
			return c, nil
		}
		if sniff := c.Format().Sniff; sniff != nil && i != claim && sniff(in, lim) {
			return c, nil
		}
	}
	if claim >= 0 {
		kind := r.convs[claim].Format().Kind
		if _, _, err := in.zip(lim); isZip(in.Data) && err != nil {
			// A zip that cannot be opened: say why (corrupt, truncated,
			// too many entries) rather than what it looks like.
			return nil, withKind(kind, err)
		}
		return nil, formatErr(kind, "the file is named or typed as "+kind+" but its content is "+describeContent(in.Data), nil)
	}
	return nil, fmt.Errorf("%w (%s, %s)", ErrUnsupported, orNone(in.MediaType, "no media type"), describeContent(in.Data))
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
