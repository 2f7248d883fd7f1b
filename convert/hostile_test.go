package convert_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/keel-go/keel/convert"
)

// deflateBomb returns a raw deflate stream of prefix followed by n MiB
// of fill bytes, made without compressing n MiB: one MiB is compressed
// and flushed to a byte boundary, and its blocks repeated, which is valid
// because each refers only to bytes within the last 32 KiB. Deflate
// cannot do better than about 1,032:1, so a gibibyte takes about 1 MiB.
func deflateBomb(t testing.TB, prefix string, fill byte, mib int) []byte {
	t.Helper()
	var head, chunk, tail bytes.Buffer
	w, _ := flate.NewWriter(&head, flate.BestCompression)
	w.Write([]byte(prefix))
	w.Flush()
	w, _ = flate.NewWriter(&chunk, flate.BestCompression)
	w.Write(bytes.Repeat([]byte{fill}, 1<<20))
	w.Flush()
	w, _ = flate.NewWriter(&tail, flate.BestCompression)
	w.Close()
	out := bytes.Clone(head.Bytes())
	for i := 0; i < mib; i++ {
		out = append(out, chunk.Bytes()...)
	}
	return append(out, tail.Bytes()...)
}

// bombZip writes a zip whose member name holds the deflate stream raw,
// declaring the size given (which may lie) and the true CRC when it
// does not.
func bombZip(t testing.TB, name string, raw []byte, declared uint64, others ...part) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range others {
		w, _ := zw.Create(p.name)
		w.Write([]byte(p.body))
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CompressedSize64: uint64(len(raw)), UncompressedSize64: declared, CRC32: crc32.ChecksumIEEE(nil)})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(raw)
	zw.Close()
	return buf.Bytes()
}

// allocated returns the bytes allocated while f ran, all goroutines
// together: not a timing, so the machine's load does not change it.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func workbookParts(sheet string) []part {
	return []part{
		{"[Content_Types].xml", xmlDecl + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		{"_rels/.rels", packageRels("xl/workbook.xml")},
		{"xl/workbook.xml", xmlDecl + `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", rels(relItem("rId1", "worksheet", "worksheets/sheet1.xml"))},
		{"xl/worksheets/sheet1.xml", sheet},
	}
}

func TestHostileFiles(t *testing.T) {
	const gib = 1 << 30
	spacesBomb := deflateBomb(t, xmlDecl+`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`, ' ', 1024)
	t.Logf("a deflate stream of %d bytes inflates to 1 GiB", len(spacesBomb))
	bombParts := workbookParts("")[:4]
	laughs := xmlDecl + `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol9 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`
	deep := xmlDecl + `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + strings.Repeat("<w:p>", 100_000) + strings.Repeat("</w:p>", 100_000) + `</w:body></w:document>`
	docxWith := func(document string) []byte {
		return makeZip(t, part{"_rels/.rels", packageRels("word/document.xml")}, part{"word/document.xml", document})
	}
	manySheets := func(n int, distinctParts bool) []byte {
		var sheets, relsList strings.Builder
		parts := []part{{"_rels/.rels", packageRels("xl/workbook.xml")}}
		for i := 1; i <= n; i++ {
			target := "worksheets/sheet1.xml"
			if distinctParts {
				target = fmt.Sprintf("worksheets/sheet%d.xml", i)
				parts = append(parts, part{"xl/" + target, `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>`})
			}
			fmt.Fprintf(&sheets, `<sheet name="S%d" sheetId="%d" r:id="rId%d"/>`, i, i, i)
			relsList.WriteString(relItem(fmt.Sprintf("rId%d", i), "worksheet", target))
		}
		if !distinctParts {
			parts = append(parts, part{"xl/worksheets/sheet1.xml", `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>`})
		}
		parts = append(parts,
			part{"xl/workbook.xml", `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>` + sheets.String() + `</sheets></workbook>`},
			part{"xl/_rels/workbook.xml.rels", rels(relsList.String())})
		return makeZip(t, parts...)
	}
	manyEntries := func(n int) []byte {
		parts := make([]part, n)
		for i := range parts {
			parts[i] = part{fmt.Sprintf("f%05d.txt", i), "x"}
		}
		return makeZip(t, parts...)
	}
	manyTarEntries := make([]part, 10_000)
	for i := range manyTarEntries {
		manyTarEntries[i] = part{fmt.Sprintf("f%05d.txt", i), "x"}
	}
	tarBomb := func() []byte {
		// A tar.gz whose one member claims 1 GiB and inflates to it: gzip
		// streams declare nothing, so only counting while inflating stops it.
		var tb bytes.Buffer
		tw := tar.NewWriter(&tb)
		tw.WriteHeader(&tar.Header{Name: "zeros", Mode: 0o644, Size: gib, Typeflag: tar.TypeReg})
		hdr := tb.Bytes()
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(hdr)
		zw.Flush()
		body := deflateBomb(t, "", 0, 1024)
		// Wrap the raw bomb as a second gzip member: gzip readers read
		// concatenated members as one stream.
		zw.Close()
		var m2 bytes.Buffer
		m2.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
		m2.Write(body)
		m2.Write(make([]byte, 8)) // CRC and size, never reached
		return append(gz.Bytes(), m2.Bytes()...)
	}()
	workbook := leadsWorkbook(t)
	docx := reportDocx(t)
	// Damage the compressed sheet itself, not a part nobody reads.
	corrupt := bytes.Clone(workbook)
	zr, err := zip.NewReader(bytes.NewReader(workbook), int64(len(workbook)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == "xl/worksheets/sheet1.xml" {
			off, _ := f.DataOffset()
			for i := off + 10; i < off+40; i++ {
				corrupt[i] ^= 0x5a
			}
		}
	}
	odsRepeats := odfPackage(t, "application/vnd.oasis.opendocument.spreadsheet", `<office:body><office:spreadsheet><table:table table:name="S">`+
		`<table:table-row table:number-rows-repeated="1000000000">`+odsCell("string", ` table:number-columns-repeated="1000000000"`, "x")+`</table:table-row></table:table></office:spreadsheet></office:body>`, "")

	small := convert.Limits{MaxUnpacked: 16 << 20}
	tests := []struct {
		name    string
		in      convert.Input
		lim     convert.Limits
		wantErr any // *convert.FormatError, *convert.LimitError, or an error for errors.Is
		maxHeap uint64
	}{
		{"xlsx sheet declaring 1 GiB", convert.Input{Name: "bomb.xlsx", Data: bombZip(t, "xl/worksheets/sheet1.xml", spacesBomb, gib, bombParts...)}, convert.Limits{}, new(*convert.LimitError), 8 << 20},
		{"xlsx sheet declaring 1 MiB, inflating to 1 GiB", convert.Input{Name: "bomb.xlsx", Data: bombZip(t, "xl/worksheets/sheet1.xml", spacesBomb, 1<<20, bombParts...)}, convert.Limits{}, new(*convert.FormatError), 16 << 20},
		{"zip member declaring 1 KiB, inflating to 1 GiB", convert.Input{Name: "bomb.zip", Data: bombZip(t, "notes.txt", spacesBomb, 1<<10)}, convert.Limits{}, new(*convert.FormatError), 8 << 20},
		{"tar.gz inflating to 1 GiB", convert.Input{Name: "bomb.tar.gz", Data: tarBomb}, small, new(*convert.LimitError), 32 << 20},
		{"billion laughs", convert.Input{Name: "lol.docx", Data: docxWith(laughs)}, convert.Limits{}, new(*convert.FormatError), 4 << 20},
		{"100,000 nested elements", convert.Input{Name: "deep.docx", Data: docxWith(deep)}, convert.Limits{}, new(*convert.LimitError), 8 << 20},
		{"10,000 sheets in 10,000 parts", convert.Input{Name: "sheets.xlsx", Data: manySheets(10_000, true)}, convert.Limits{}, new(*convert.LimitError), 16 << 20},
		{"10,000 sheets in one part", convert.Input{Name: "sheets.xlsx", Data: manySheets(10_000, false)}, convert.Limits{}, new(*convert.LimitError), 32 << 20},
		{"10,000 zip entries", convert.Input{Name: "many.zip", Data: manyEntries(10_000)}, convert.Limits{}, new(*convert.LimitError), 4 << 20},
		{"10,000 tar entries", convert.Input{Name: "many.tar", Data: makeTar(t, false, manyTarEntries)}, convert.Limits{}, new(*convert.LimitError), 32 << 20},
		{"a billion repeated cells", convert.Input{Name: "repeats.ods", Data: odsRepeats}, convert.Limits{}, nil, 32 << 20},
		{"truncated xlsx", convert.Input{Name: "cut.xlsx", Data: workbook[:len(workbook)/2]}, convert.Limits{}, new(*convert.FormatError), 4 << 20},
		{"truncated docx", convert.Input{Name: "cut.docx", Data: docx[:len(docx)-200]}, convert.Limits{}, new(*convert.FormatError), 4 << 20},
		{"truncated tar.gz", convert.Input{Name: "cut.tar.gz", Data: makeTar(t, true, projectFiles(t))[:300]}, convert.Limits{}, new(*convert.FormatError), 4 << 20},
		{"corrupt xlsx", convert.Input{Name: "bad.xlsx", Data: corrupt}, convert.Limits{}, new(*convert.FormatError), 16 << 20},
		{"PNG named .xlsx", convert.Input{Name: "leads.xlsx", MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Data: pngHeader}, convert.Limits{}, new(*convert.FormatError), 1 << 20},
		{"unclosed RTF groups", convert.Input{Name: "x.rtf", Data: []byte(`{\rtf1 ` + strings.Repeat("{", 100_000))}, convert.Limits{}, new(*convert.LimitError), 4 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res *convert.Result
			var err error
			heap := allocated(func() {
				res, err = convert.Default().WithLimits(tt.lim).Convert(context.Background(), tt.in)
			})
			switch want := tt.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatalf("Convert(%s) error = %v; want a result", tt.in.Name, err)
				}
				if !res.Omitted.Any() {
					t.Errorf("Convert(%s) left nothing out; want the cap to cut it", tt.in.Name)
				}
			case **convert.FormatError:
				if !errors.As(err, want) {
					t.Errorf("Convert(%s) error = %v (%T); want a *convert.FormatError", tt.in.Name, err, err)
				}
			case **convert.LimitError:
				if !errors.As(err, want) || !errors.Is(err, convert.ErrLimit) {
					t.Errorf("Convert(%s) error = %v (%T); want a *convert.LimitError matching ErrLimit", tt.in.Name, err, err)
				}
			}
			if heap > tt.maxHeap {
				t.Errorf("Convert(%s) allocated %d bytes; want at most %d", tt.in.Name, heap, tt.maxHeap)
			}
			t.Logf("%v; %d bytes allocated", err, heap)
		})
	}
}

// countdown is a context that is canceled once its Err has been asked
// n times: it shows that a long conversion keeps asking, without timing
// anything.
type countdown struct {
	context.Context
	n atomic.Int64
}

func (c *countdown) Err() error {
	if c.n.Add(-1) <= 0 {
		return context.Canceled
	}
	return nil
}

func TestConvertStopsWhenCanceled(t *testing.T) {
	data := bigWorkbook(t, 30_000)
	ctx := &countdown{Context: context.Background()}
	ctx.n.Store(3)
	_, err := convert.Default().Convert(ctx, convert.Input{Name: "big.xlsx", Data: data})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Convert(big.xlsx) with a context canceled during the conversion: error = %v; want context.Canceled", err)
	}
}
