package convert

import "github.com/keel-go/keel/convert/internal/limit"

// Limits bound what a conversion may read and produce. A zero field takes
// its default; the defaults suit files of up to a few tens of megabytes,
// such as a user's attachments.
type Limits struct {
	// MaxChars caps the text of one file, in characters (runes). The text
	// is cut on a row, paragraph or line boundary and the [Result] says how
	// much was left out. Default 100,000.
	MaxChars int
	// MaxMeasured caps the bytes a converter of packages (docx, xlsx,
	// pptx, the OpenDocument kinds, epub) reads once MaxChars has cut the
	// text, only to count what was left out, in unpacked bytes of the
	// package's parts. Past it, reading stops: [Omission].AtLeast says
	// that the counts are lower bounds, a sheet read in part is said to
	// be at least the size read (with the range it states, an xlsx
	// sheet's dimension, when that goes further) and marked
	// [Part].Partial, and sheets and slides after it are not read.
	// Default 16 MiB: a file a few times the size the cap shows
	// gets exact counts, and one that inflates to hundreds of megabytes
	// of XML (a bomb, or an export of a million rows) costs no more than
	// this past the cap. The other converters read at most MaxInput
	// bytes from memory and always count exactly.
	MaxMeasured int64
	// MaxInput is the largest file accepted, in bytes. Default 64 MiB.
	MaxInput int64
	// MaxUnpacked caps the bytes a conversion inflates from an archive,
	// counted as they are inflated (declared sizes are checked first but
	// not trusted). Default 256 MiB.
	MaxUnpacked int64
	// MaxEntries caps the entries of an archive (zip, tar, and the parts
	// of an Office or OpenDocument file), the relationships of one Office
	// part and the parts of a message. Default 5,000.
	MaxEntries int
	// MaxSheets caps the sheets of a workbook and the slides of a
	// presentation. Default 1,000.
	MaxSheets int
	// MaxDepth caps the nesting of XML elements, RTF groups and MIME
	// parts. Default 256.
	MaxDepth int
	// MaxTokens caps the XML tokens (tags and text runs) read from one
	// file, all parts together. Default 50,000,000: a 100,000-row sheet of
	// nine columns holds about 6,000,000.
	MaxTokens int
	// MaxStringBytes caps the memory a workbook's shared strings take:
	// their bytes, and 4 more for each string. Default 32 MiB, which
	// holds a million strings of 28 bytes.
	MaxStringBytes int64
	// MaxStrings caps the number of a workbook's shared strings (xlsx,
	// xls). Default 2,000,000: Excel keeps one per distinct text, and a
	// workbook that holds more is past the hundreds of megabytes of XML
	// MaxUnpacked allows; a table of millions of one-letter strings,
	// which fits MaxStringBytes, is refused after reading this many
	// rather than after seconds.
	MaxStrings int
	// MaxMemberText is the largest archive member whose text is shown
	// after the listing, in bytes. Default 64 KiB.
	MaxMemberText int64
	// MaxStyles caps the styles read from one file: the number formats
	// and the cell formats of a workbook (xlsx), the paragraph styles and
	// list definitions of a document (docx). Default 65,536, past what
	// Excel allows (64,000 cell formats, a few hundred number formats)
	// and Word writes, so a file over it was made to cost. Past it, the
	// rest of the styles is not read: a cell whose format was not read
	// shows its number as stored (General), and its sheet's heading says
	// so; a paragraph whose style was not read is a plain paragraph.
	MaxStyles int
}

// The default limits.
const (
	DefaultMaxChars       = 100_000
	DefaultMaxInput       = 64 << 20
	DefaultMaxUnpacked    = 256 << 20
	DefaultMaxEntries     = 5_000
	DefaultMaxSheets      = 1_000
	DefaultMaxDepth       = 256
	DefaultMaxTokens      = 50_000_000
	DefaultMaxMemberText  = 64 << 10
	DefaultMaxStringBytes = 32 << 20
	DefaultMaxStrings     = 2_000_000
	DefaultMaxMeasured    = 16 << 20
	DefaultMaxStyles      = 1 << 16
)

// withDefaults returns l with every zero field set to its default.
func (l Limits) withDefaults() Limits {
	limit.Default(&l.MaxChars, DefaultMaxChars)
	limit.Default(&l.MaxInput, DefaultMaxInput)
	limit.Default(&l.MaxUnpacked, DefaultMaxUnpacked)
	limit.Default(&l.MaxEntries, DefaultMaxEntries)
	limit.Default(&l.MaxSheets, DefaultMaxSheets)
	limit.Default(&l.MaxDepth, DefaultMaxDepth)
	limit.Default(&l.MaxTokens, DefaultMaxTokens)
	limit.Default(&l.MaxMemberText, DefaultMaxMemberText)
	limit.Default(&l.MaxStringBytes, DefaultMaxStringBytes)
	limit.Default(&l.MaxStrings, DefaultMaxStrings)
	limit.Default(&l.MaxMeasured, DefaultMaxMeasured)
	limit.Default(&l.MaxStyles, DefaultMaxStyles)
	return l
}
