// Package convert turns a file a model cannot read into text it can: a
// spreadsheet into CSV, a document or presentation into Markdown, an
// archive into a listing, an e-mail into its headers, body and list of
// attachments. It is meant for the file a model refused: the caller puts
// the text in the file's place, labelled with the [Result]'s facts.
//
// A [Registry] holds the converters; [Default] returns the built-ins. A
// registry chooses by the file's normalised media type, then its
// extension, then its content, and always checks the content: a docx
// sent as application/zip is read as a docx, and a PNG named leads.xlsx
// gets a [*FormatError] instead of being parsed as a workbook.
//
//	res, err := convert.Default().Convert(ctx, convert.Input{Name: "leads.xlsx", Data: data})
//	// res.Description: `sheet "Leads", 1,204 rows × 9 columns`; res.As: "CSV"
//
// # What each converter produces
//
//   - xlsx, xlsm ([XLSX]) and ods ([ODS]): every sheet in workbook order
//     as CSV (RFC 4180) under a line naming it, its size and its used range:
//     `# Sheet "Leads": 1,204 rows × 9 columns, cells A1:I1204`. The used
//     range runs from the first to the last non-empty row and column, so
//     empty leading and trailing rows and columns are dropped and the range
//     says where the CSV sits in the sheet. Formulas give their cached
//     values. A number whose format is a date or time becomes ISO 8601
//     (2024-03-01, 2024-03-01T18:00:00, 13:45:00; elapsed times as
//     36:30:00); any other number is written as its format shows it
//     (percent, currency, thousands, fixed decimals, scientific,
//     fractions: 34.7%, $1,500.00), or as stored under General. Where the
//     format rounds the stored value, the stored value follows in
//     brackets, 34.7% [0.3471], and a line under the sheet's heading says
//     so, so that no digit of the file is lost. Booleans
//     are TRUE and FALSE. Hidden sheets are marked "(hidden)". A merged
//     range keeps its value in its first cell, as the file stores it, and
//     the ranges are listed under the sheet's line, so the empty cells of a
//     merge are not mistaken for missing data.
//   - docx ([DOCX]) and odt ([ODT]): Markdown. Headings (by style name or
//     outline level) as #, paragraphs, list items as - or 1. (two spaces per
//     level), tables as Markdown tables with their first row as header,
//     links as [text](url). Deleted text of tracked changes, field codes,
//     footnotes and the fallback copy of alternate content are left out;
//     text boxes are kept.
//   - pptx ([PPTX]) and odp ([ODP]): one section per slide in the
//     presentation's order, `# Slide 2: Title`, then its text (body
//     placeholders as list items), tables, and `## Notes` with the speaker
//     notes. Hidden slides are marked; slide numbers, dates and footers are
//     left out.
//   - text ([Text]): JSON, NDJSON, XML, YAML, TOML, CSV, TSV, source code,
//     and application/octet-stream whose content is text, as it is (UTF-8,
//     LF line ends; UTF-16 with a byte order mark and charsets the media
//     type names are decoded).
//   - zip ([Zip]) and tar, tar.gz ([Tar]): a listing (path and size), then
//     the text of each text member of at most [Limits].MaxMemberText bytes.
//     Archives inside are listed, never opened.
//   - eml ([EML]): From, To, Cc, Date and Subject, the text body (plain
//     text preferred to HTML, HTML turned into text), and the attachments
//     with their types and decoded sizes.
//   - rtf ([RTF]): plain text, one paragraph per line.
//   - pdf ([PDF]): plain text, each page under `--- page 3 ---`, its lines
//     in the order the content draws them (columns one after the other),
//     a table's row on one line with its cells joined by tabs, a blank
//     line between blocks. Text comes through the fonts' ToUnicode maps
//     (CJK in CID fonts), encodings and glyph names, and from form
//     XObjects. A document without text says so in its description: `12
//     pages, no text layer: scanned images`. Streams count against
//     [Limits].MaxUnpacked as they are decoded and content streams are
//     read through a small window, so a deflate bomb costs time, not
//     memory; pages are capped by [Limits].MaxEntries. docs/pdf.md says
//     how the reader was chosen.
//   - xls ([XLS]), doc ([DOC]) and ppt ([PPT]), the Office 97–2003 files:
//     as xlsx, docx and pptx are, read from the Compound File by the
//     package's own reader (cfb.go), whose sector chains are checked for
//     loops and bounds. Files of Office 95 and earlier and encrypted ones
//     get an error matching [ErrNeedsLibreOffice].
//   - msg ([MSG]): an Outlook message, as eml.
//   - html ([HTML]) and epub ([EPUB]): Markdown; an e-book's title and
//     authors, then its spine's documents in reading order. A paragraph
//     longer than one token of the HTML tokenizer (16 MiB) is cut at the
//     cap like any other, not refused (htmlruns.go says how).
//   - Everything else LibreOffice reads ([LibreOffice], not in [Default]
//     because it runs a program): headless, a profile and a directory per
//     call, a timeout, its output bounded.
//
// # The cap
//
// The text of one file is capped at [Limits].MaxChars characters (default
// 100,000), cut after the last whole row, paragraph or line that fits; a
// first unit longer than the whole cap is cut inside so the text is never
// empty. [Result].Omitted says how many characters and units were left
// out: the rest of the file is still read, but only measured, so a
// converter's memory follows the cap and not the file. The converters of
// packages (docx, xlsx, pptx, the OpenDocument kinds, epub) measure at
// most [Limits].MaxMeasured more unpacked bytes (16 MiB) and then stop
// reading: the counts are then lower bounds ([Omission].AtLeast), a sheet
// read in part says "at least" its size, and sheets and slides after it
// are not read ([Part].Partial), so that a file inflating to hundreds of
// megabytes of XML costs a fraction of a second past the cap, not
// seconds. Where reading stops, the XML scanner closes the open
// elements as if the part ended there, so every reader finishes what it
// gathered (a paragraph, a table, a sheet) as at the end of any part and
// what the text shows is the same (zipfile.go says how the cut is
// known).
//
// # Limits, and why
//
// Converters never trust their input. A zip directory's entries are
// counted by their signatures before it is parsed (a directory can
// declare fewer than it holds); a member whose declared size exceeds what
// is left of [Limits].MaxUnpacked is refused before it is inflated, and
// every inflated byte is counted as it comes, so a member lying about its
// size stops at the limit (archive/zip also stops at the declared size).
// Deflate cannot exceed about 1,032:1, so a 1 MiB bomb of 1 GiB costs a
// few hundred kilobytes here. XML is read by a scanner of this package
// that refuses any DOCTYPE, so no entity is declared, let alone expanded
// (billion laughs), decodes only the predefined entities and character
// references, and bounds nesting ([Limits].MaxDepth), tokens
// ([Limits].MaxTokens) and the size of one token. Repetition counts of
// OpenDocument rows and cells are clamped to the sheet and counted in one
// step, never looped over. MIME nesting and parts, RTF groups, sheets and
// slides are bounded too. Long loops check the context. A converter that
// panics anyway is reported as a [*FormatError] by [Registry.Convert].
//
// Errors are typed: [*FormatError] for a malformed file or content of
// another type, [*LimitError] (matching [ErrLimit]) for a limit, an error
// matching [ErrUnsupported] when no converter knows the file, and the
// context's error.
//
// # Why not encoding/xml or excelize's reader
//
// encoding/xml tokenizes about 22 MB/s on the machines this was measured
// on, and excelize's streaming row reader, which is built on it, took
// 4.5 s (raw values) to 10.7 s (formatted) for a 7 MiB, 100,000-row
// workbook. The scanner in xmlscan.go does not allocate per token and
// reads the same sheet an order of magnitude faster; see BENCHMARKS.md.
// excelize writes the workbooks the tests and benchmarks read.
//
// # Adding a converter
//
// Implement [Converter]: Format names the kind, the media types and
// extensions it claims and, optionally, a Sniff that recognises its
// content; Convert returns a [Result] and must bound what it reads with
// the [Limits] it is given. Add it with [Registry.With]: a converter of a
// kind the registry has replaces it in place; a new kind goes first, so
// that it wins over a built-in that recognises the same content (a
// zip-based format over "zip").
package convert
