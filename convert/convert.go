package convert

import (
	"archive/zip"
	"context"
	"path"
	"strings"

	"github.com/keel-go/keel"
)

// Input is a file to convert. An Input is used by one conversion at a
// time: converters keep what they parsed of it (the zip directory) in
// it, for the next converter that looks.
type Input struct {
	// Name is the file's name as the sender gave it, such as "leads.xlsx".
	// It may be empty; only its extension is used, to choose a converter.
	Name string
	// MediaType is the media type as the sender gave it, parameters
	// included. It may be empty or wrong: the content is checked.
	MediaType string
	// Data is the file's content. Converters never modify it.
	Data []byte

	// opts are the options of the registry converting the input.
	opts Options

	// zr caches the parsed zip directory, shared by the converters that
	// sniff the content and the one that converts it.
	zr     *zip.Reader
	zindex map[string]*zip.File
	zrErr  error
	zrSet  bool
	// cf caches the parsed Compound File the same way.
	cf     *cfb
	cfErr  error
	cfbSet bool
}

// Ext returns the lower-case extension of the input's name, with its dot
// (".xlsx"), or "" when the name has none.
func (in *Input) Ext() string {
	return strings.ToLower(path.Ext(strings.ReplaceAll(in.Name, `\`, "/")))
}

// Options returns the options of the [Registry] converting the input,
// for converters to follow.
func (in *Input) Options() Options { return in.opts }

// Options change what converters put in the text. The zero value is
// what [Default] does.
type Options struct {
	// Comments adds the comments of documents and spreadsheets (docx,
	// odt, xlsx, ods, doc) to their text: in a document as notes after
	// it, marked where they are anchored ([^c1]); in a spreadsheet
	// under the sheet's heading, by cell. Off by default: comments are
	// often a draft's private remarks, not what its author sent.
	Comments bool
}

// mediaType returns the normalised media type.
func (in *Input) mediaType() string { return keel.NormalizeMediaType(in.MediaType) }

// Result is a converted file: its text and the facts a caller needs to
// label it, such as `sheet "Leads", 1,204 rows × 9 columns, as CSV`.
type Result struct {
	// Kind is the converter's kind: "xlsx", "docx", "pptx", "odt", "ods",
	// "odp", "text", "zip", "tar", "eml", "rtf" or "pdf" for the built-ins.
	Kind string
	// As names the form of Text: "CSV", "Markdown" or "plain text".
	As string
	// Description says in a few words what the file holds, without its
	// name: `sheet "Leads", 1,204 rows × 9 columns`, `12 slides`,
	// `JSON`. It is meant to be put in a label.
	Description string
	// Parts lists the sheets, slides or archive members, in file order,
	// with their sizes; nil for kinds that have none.
	Parts []Part
	// Text is the file as text, at most [Limits].MaxChars characters.
	Text string
	// Omitted says how much of the text was left out by the cap; zero
	// when Text is whole.
	Omitted Omission
}

// Part is a sheet, slide or archive member of a converted file.
type Part struct {
	// Kind is "sheet", "slide" or "member".
	Kind string
	// Name is the sheet's name, the slide's title or the member's path.
	Name string
	// Rows and Columns are a sheet's size once empty trailing rows and
	// columns are dropped.
	Rows, Columns int
	// Merged counts a sheet's merged ranges.
	Merged int
	// Size is a member's unpacked size in bytes.
	Size int64
	// Hidden reports a hidden sheet or slide.
	Hidden bool
	// Partial reports a sheet or slide that reading stopped in, or
	// before, once the cap had cut the text (see [Limits].MaxMeasured):
	// Rows and Columns count what was read, and a slide's Name is empty
	// when its title was not read.
	Partial bool
}

// Omission says how much text the cap left out.
type Omission struct {
	// Chars is the number of characters left out.
	Chars int
	// Units is the number of whole or partly left-out rows, paragraphs or
	// lines.
	Units int
	// Unit names what Units counts: "rows", "paragraphs" or "lines".
	Unit string
	// AtLeast reports that Chars and Units are lower bounds: the
	// converter stopped reading once the cap had cut the text and
	// [Limits].MaxMeasured more bytes were read, so the rest of the file
	// was neither shown nor counted.
	AtLeast bool
}

// Any reports whether anything was left out.
func (o Omission) Any() bool { return o.Chars > 0 }

// Converter turns one kind of file into text. Implementations must be
// safe for concurrent use and must not trust their input: they bound what
// they read with the [Limits] they are given and return a [*FormatError],
// a [*LimitError] or the context's error rather than panic.
type Converter interface {
	// Format says which files the converter is for.
	Format() Format
	// Convert converts in; lim has its defaults filled in.
	Convert(ctx context.Context, in *Input, lim Limits) (*Result, error)
}

// Format says which files a [Converter] is for.
type Format struct {
	// Kind names the converter; a [Registry] holds one converter per kind.
	Kind string
	// MediaTypes are the normalised media types it claims.
	MediaTypes []string
	// Extensions are the lower-case extensions it claims, with their dot.
	Extensions []string
	// Sniff reports whether the content is of this kind. nil means the
	// converter is chosen by media type or extension only and accepts any
	// content it is given.
	Sniff func(in *Input, lim Limits) bool
}
