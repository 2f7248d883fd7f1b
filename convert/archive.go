package convert

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Zip returns the converter of zip archives: a listing of the members
// (path and size), then the text of each small text member. Members are
// never extracted to disk and archives inside are only listed.
func Zip() Converter { return zipConverter{} }

// Tar returns the converter of tar archives, gzip-compressed or not, by
// the same rules as [Zip].
func Tar() Converter { return tarConverter{} }

type zipConverter struct{}

type tarConverter struct{}

func (zipConverter) Format() Format {
	return Format{
		Kind:       "zip",
		MediaTypes: []string{"application/zip", "application/x-zip-compressed", "application/x-zip"},
		Extensions: []string{".zip"},
		Sniff: func(in *Input, lim Limits) bool {
			if !isZip(in.Data) {
				return false
			}
			_, _, err := in.zip(lim)
			return err == nil
		},
	}
}

func (tarConverter) Format() Format {
	return Format{
		Kind:       "tar",
		MediaTypes: []string{"application/x-tar", "application/gzip", "application/x-gzip", "application/x-gtar", "application/x-compressed-tar"},
		Extensions: []string{".tar", ".tgz", ".gz"},
		Sniff: func(in *Input, lim Limits) bool {
			head := in.Data
			if isGzip(head) {
				zr, err := gzip.NewReader(strings.NewReader(bytesView(in.Data)))
				if err != nil {
					return false
				}
				head = make([]byte, 512)
				n, _ := io.ReadFull(zr, head)
				head = head[:n]
			}
			return len(head) >= 262 && string(head[257:262]) == "ustar"
		},
	}
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }

// listing writes an archive's listing and the text of its small text
// members.
type listing struct {
	sink    *sink
	lim     Limits
	noText  bool // list the members only
	members []Part
	texts   []memberText
	total   int64
	shown   int64 // bytes of member text kept to show
}

// maxMemberName is the longest member path listed whole, in bytes.
const maxMemberName = 4 << 10

type memberText struct {
	name, text string
}

func (l *listing) add(name string, size int64, dir bool, read func() ([]byte, error)) error {
	if len(l.members) >= l.lim.MaxEntries {
		return limitErr("", "archive entries", int64(l.lim.MaxEntries))
	}
	if len(name) > maxMemberName {
		// archive/tar reads names of up to a megabyte: five thousand of
		// them would take gigabytes to list.
		name = name[:maxMemberName] + "…"
	}
	name = strings.ToValidUTF8(name, "\uFFFD")
	l.members = append(l.members, Part{Kind: "member", Name: name, Size: size})
	l.total += size
	if l.noText || dir || size == 0 || size > l.lim.MaxMemberText || l.shown > int64(4*l.lim.MaxChars) {
		return nil
	}
	b, err := read()
	if err != nil {
		return err
	}
	if isText(b) && utf8.Valid(b) {
		text := strings.ReplaceAll(string(b), "\r\n", "\n")
		l.texts = append(l.texts, memberText{name, text})
		l.shown += int64(len(b))
	}
	return nil
}

func (l *listing) write(kind string) *Result {
	s := l.sink
	s.extra(fmt.Sprintf("# %s archive: %s, %s unpacked\n", kind, plural(len(l.members), "entry"), plural(int(l.total), "byte")))
	for _, m := range l.members {
		if strings.HasSuffix(m.Name, "/") {
			s.unit(quoteName(m.Name) + " (directory)\n")
		} else {
			s.unit(quoteName(m.Name) + " (" + plural(int(m.Size), "byte") + ")\n")
		}
	}
	for _, t := range l.texts {
		s.extra("\n## " + quoteName(t.name) + "\n")
		for line := range strings.Lines(t.text) {
			s.unit(line)
		}
		if !strings.HasSuffix(t.text, "\n") {
			s.extra("\n")
		}
	}
	desc := kind + " archive, " + plural(len(l.members), "entry")
	if len(l.texts) > 0 {
		desc += " (" + thousands(len(l.texts)) + " shown as text)"
	}
	return &Result{Kind: strings.ToLower(kind), As: "text", Description: desc, Parts: l.members, Text: s.text(), Omitted: s.omit}
}

// quoteName shows a member's path as it is unless it holds control
// characters, which could pass for lines of the listing.
func quoteName(name string) string {
	if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return strconv.Quote(name)
	}
	return name
}

func (zipConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	zr, _, err := in.zip(lim)
	if err != nil {
		return nil, err
	}
	b := newBudget(lim.MaxUnpacked)
	l := &listing{sink: newSink(lim.MaxChars, "lines"), lim: lim}
	// A document package no converter took (an OpenDocument drawing, a
	// Visio or other Office Open XML file) is not dumped as XML: its
	// members are listed and, for OpenDocument, its text is given.
	odf := odfMimetype(in, lim)
	_, ooxml := in.zindex[partKey("[Content_Types].xml")]
	l.noText = odf != "" || ooxml
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		read := func() ([]byte, error) {
			if f.Flags&1 != 0 { // encrypted
				return nil, nil
			}
			rc, err := openMember(f, b)
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			return io.ReadAll(io.LimitReader(rc, lim.MaxMemberText+1))
		}
		size := int64(min(f.UncompressedSize64, 1<<62))
		if err := l.add(f.Name, size, f.FileInfo().IsDir(), read); err != nil {
			return nil, err
		}
	}
	switch {
	case odf != "":
		return l.odfText(ctx, in, odf)
	case ooxml:
		res := l.write("zip")
		res.Description = "Office Open XML package, " + plural(len(l.members), "entry") + " (its XML is not shown)"
		return res, nil
	}
	return l.write("zip"), nil
}

// odfText lists an OpenDocument package of a kind no converter reads
// (a drawing, a formula, a chart) and gives the text of its content.
func (l *listing) odfText(ctx context.Context, in *Input, mime string) (*Result, error) {
	res := l.write("zip")
	_, sc, c, err := openContent(ctx, in, l.lim)
	if err != nil {
		return res, nil // listed, with no text to give
	}
	defer c.Close()
	out := &blocks{sink: l.sink}
	l.sink.extra("\n## Text\n\n")
	w := newODFFlow(out, newODFStyles(), keepBytes(l.lim), false)
	if err := w.walk(sc); err != nil {
		return nil, err
	}
	res.Text, res.Omitted = l.sink.text(), l.sink.omit
	res.Description = "OpenDocument package (" + mime + "), " + plural(len(l.members), "entry") + ", " + out.describe()
	return res, nil
}

func (tarConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	b := newBudget(lim.MaxUnpacked)
	var r io.Reader = strings.NewReader(bytesView(in.Data))
	kind := "tar"
	if isGzip(in.Data) {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, formatErr("", "corrupt gzip stream", err)
		}
		defer zr.Close()
		r, kind = zr, "tar.gz"
	}
	tr := tar.NewReader(b.reader(r))
	l := &listing{sink: newSink(lim.MaxChars, "lines"), lim: lim}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, tarErr(err)
		}
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeDir:
		default:
			continue // links, devices and the headers of long names
		}
		read := func() ([]byte, error) {
			data, err := io.ReadAll(io.LimitReader(tr, lim.MaxMemberText+1))
			if err != nil {
				return nil, tarErr(err)
			}
			return data, nil
		}
		if err := l.add(h.Name, max(h.Size, 0), h.Typeflag == tar.TypeDir, read); err != nil {
			return nil, err
		}
	}
	res := l.write(kind)
	res.Kind = "tar"
	return res, nil
}

func tarErr(err error) error {
	if errors.Is(err, ErrLimit) {
		return err
	}
	return formatErr("", "corrupt or truncated tar archive", err)
}
