package convert

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/keel-go/keel/convert/internal/pdf"
)

// PDF returns the converter of PDF documents to plain text: each page
// under a line `--- page 3 ---`, its lines in reading order. Fonts are
// read through their ToUnicode maps (CJK text in CID fonts included),
// else their encodings; text inside form XObjects is kept; runs of a
// line are joined left to right, with a tab across a wide gap (table
// cells), and a blank line marks a jump between blocks. A document
// without any text (scanned pages) is described as such. An encrypted
// document is read when its user password is empty.
func PDF() Converter { return pdfConverter{} }

type pdfConverter struct{}

var pdfMagic = []byte("%PDF-")

func (pdfConverter) Format() Format {
	return Format{
		Kind:       "pdf",
		MediaTypes: []string{"application/pdf", "application/x-pdf"},
		Extensions: []string{".pdf"},
		Sniff: func(in *Input, lim Limits) bool {
			// Some writers put bytes before the header; readers look in
			// the first kilobyte.
			return bytes.Contains(in.Data[:min(len(in.Data), 1024)], pdfMagic)
		},
	}
}

func (pdfConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	plim := pdf.Limits{MaxUnpacked: lim.MaxUnpacked, MaxDepth: lim.MaxDepth, MaxTokens: int64(lim.MaxTokens), MaxPages: lim.MaxEntries}
	doc, err := pdf.Open(ctx, in.Data, plim)
	if err != nil {
		return nil, pdfErr(err)
	}
	pages, err := doc.Pages()
	if err != nil {
		return nil, pdfErr(err)
	}
	s := newSink(lim.MaxChars, "lines")
	var textless, imageOnly int
	var buf []byte
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		marker := "--- page " + strconv.Itoa(i+1) + " ---\n"
		if i > 0 {
			marker = "\n" + marker
		}
		s.unit(marker)
		gap := false
		st, err := doc.Text(p, func(line []byte) {
			if line == nil {
				gap = true
				return
			}
			if gap {
				s.unit("\n")
				gap = false
			}
			if s.full {
				s.skip(utf8.RuneCount(line)+1, 1)
				return
			}
			buf = append(append(buf[:0], line...), '\n')
			s.unit(bytesView(buf))
		})
		if err != nil {
			return nil, pdfErr(err)
		}
		if st.Glyphs == 0 {
			textless++
			if st.Images > 0 {
				imageOnly++
			}
		}
	}
	return &Result{Kind: "pdf", As: "plain text", Description: describePDF(len(pages), textless, imageOnly), Text: s.text(), Omitted: s.omit}, nil
}

// describePDF says how many pages and how many have no text: "12 pages",
// "12 pages, 2 without text", "12 pages, no text layer: scanned images".
func describePDF(pages, textless, imageOnly int) string {
	d := plural(pages, "page")
	switch {
	case pages > 0 && textless == pages && imageOnly > 0:
		return d + ", no text layer: scanned images"
	case pages > 0 && textless == pages:
		return d + ", no text"
	case textless > 0:
		return d + ", " + strconv.Itoa(textless) + " without text"
	}
	return d
}

// pdfErr turns the reader's errors into this package's.
func pdfErr(err error) error {
	var le *pdf.LimitError
	var fe *pdf.FormatError
	switch {
	case errors.As(err, &le):
		return limitErr("pdf", le.Limit, le.Max)
	case errors.Is(err, pdf.ErrPassword):
		return formatErr("pdf", "the document is encrypted and needs a password; send it decrypted", nil)
	case errors.As(err, &fe):
		return formatErr("pdf", fe.Reason, fe.Err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return formatErr("pdf", "cannot read the document", err)
}
