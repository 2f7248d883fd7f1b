package pdf

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
	"unicode/utf8"
)

// The fuzz targets here reach the reader's parts without a whole PDF
// around them (convert's FuzzPDF feeds whole files): the object parser
// and the repair of a file without a table, stream filters and
// decryption, CMaps, and the /Encrypt dictionary. Each runs under
// small limits and fails past a deadline: every input must end within
// the limits, in a result or a typed error.
//
//	go test -run='^$' -fuzz='^FuzzObjects$' -fuzztime=2m -parallel=1 ./convert/internal/pdf

var fuzzLimits = Limits{MaxUnpacked: 1 << 20, MaxDepth: 64, MaxTokens: 100_000, MaxPages: 50}

const fuzzDeadline = 10 * time.Second

// fuzzDoc is a document over data, without its structure read.
func fuzzDoc(t *testing.T, data []byte) *Document {
	ctx, cancel := context.WithTimeout(context.Background(), fuzzDeadline)
	t.Cleanup(cancel)
	return newDocument(ctx, data, fuzzLimits)
}

// inTime fails the run when f takes longer than the deadline.
func inTime(t *testing.T, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if took := time.Since(start); took > fuzzDeadline {
		t.Fatalf("took %v, past the deadline of %v", took, fuzzDeadline)
	}
}

// typed fails the run on an error that is not the reader's own.
func typed(t *testing.T, err error) {
	t.Helper()
	var le *LimitError
	var fe *FormatError
	if err != nil && err != io.EOF && !errors.As(err, &le) && !errors.As(err, &fe) && !errors.Is(err, ErrUnsupportedFilter) {
		t.Fatalf("error %v (%T) is not typed", err, err)
	}
}

func FuzzObjects(f *testing.F) {
	for _, s := range []string{
		"1 0 obj <</Type /Catalog /Pages 2 0 R /A [1 2.5 -.5 (str\\)ing) <48 65> /N#20x true null]>> endobj",
		"2 0 obj <</Length 5 /Filter /ASCIIHexDecode>> stream\n414243>\nendstream endobj trailer <</Root 1 0 R>>",
		"3 0 obj <</Type /ObjStm /N 2 /First 8 /Length 20>> stream\n5 0 6 4 (a) [1 2]\nendstream endobj",
		"4 0 obj (unclosed 5 0 obj <</A 6 0 obj [[[ 7 0 obj <",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inTime(t, func() {
			d := fuzzDoc(t, data)
			p := d.newParser(data)
			for i := 0; i < 1000; i++ {
				_, tok, err := p.object(0)
				typed(t, err)
				if err != nil || tok.kind == tEOF {
					break
				}
			}
			// The repair of a file without a usable table: every object
			// found, and its streams decoded.
			d = fuzzDoc(t, append([]byte("%PDF-1.7\n"), data...))
			typed(t, d.rebuildXref())
			for num := range d.xref {
				if s, ok := d.resolve(Ref{Num: num}).(*Stream); ok {
					_, err := d.decodeAll(s)
					typed(t, err)
				}
			}
		})
	})
}

// FuzzStream decodes a stream of the given dictionary and data, in the
// clear or encrypted by one of the methods with a fixed key.
func FuzzStream(f *testing.F) {
	f.Add([]byte("<</Filter /FlateDecode /DecodeParms <</Predictor 12 /Columns 4>>>>"), []byte("x\x9c\x63\x60\x00\x00\x00\x02\x00\x01"), uint8(0))
	f.Add([]byte("<</Filter [/ASCII85Decode /RunLengthDecode]>>"), []byte("<~!<N?+\"~>"), uint8(0))
	f.Add([]byte("<</Filter [/Crypt /AHx] /DecodeParms [<</Name /Identity>> null]>>"), []byte("41 42 4"), uint8(2))
	f.Add([]byte("<</Type /XRef /Filter /AHx>>"), []byte("414243"), uint8(1))
	f.Add([]byte("<<>>"), []byte("0123456789abcdef0123456789abcdef"), uint8(2))
	f.Add([]byte("<<>>"), []byte("0123456789abcdef0123456789abcdef"), uint8(3))
	f.Add([]byte("<</Filter /Fl /DecodeParms <</Predictor 2 /Colors 3 /BitsPerComponent 16 /Columns 7>>>>"), []byte("x\x01\x01\x00\x00\xff\xff"), uint8(1))
	f.Fuzz(func(t *testing.T, dict, data []byte, m uint8) {
		inTime(t, func() {
			d := fuzzDoc(t, nil)
			o, _, _ := d.newParser(dict).object(0)
			dt, ok := o.(Dict)
			if !ok {
				return
			}
			if m%4 != 0 {
				key := []byte("0123456789abcdef0123456789abcdef")
				c := &crypt{key: key[:16], stm: method(m % 4), str: method(m % 4), filters: map[Name]method{"StdCF": method(m % 4)}, metadata: m&4 == 0}
				if c.stm == methodAESV3 {
					c.key = key
				}
				d.crypt = c
				_, err := c.decryptString(data, Ref{Num: 7})
				typed(t, err)
			}
			r, err := d.open(&Stream{Dict: dt, Raw: data, ref: Ref{Num: 7, Gen: int(m)}})
			typed(t, err)
			if err == nil {
				_, err = io.Copy(io.Discard, r)
				typed(t, err)
			}
		})
	})
}

func FuzzCMap(f *testing.F) {
	f.Add([]byte("1 begincodespacerange <00> <ff> endcodespacerange 2 beginbfchar <01> <0041> <02> /fi endbfchar 1 beginbfrange <10> <20> [<0042> <D83DDE00>] endbfrange"), []byte("\x01\x02\x11"))
	f.Add([]byte("2 begincodespacerange <00> <80> <8140> <FFFF> endcodespacerange 1 begincidrange <8140> <817e> 633 endcidrange 1 begincidchar <20> 1 endcidchar"), []byte("\x20\x81\x40\xff"))
	f.Fuzz(func(t *testing.T, data, codes []byte) {
		inTime(t, func() {
			d := fuzzDoc(t, nil)
			c := d.parseCMap(data)
			for s := codes; len(s) > 0; {
				code, n := c.nextCode(s, 2)
				if n < 1 || n > len(s) {
					t.Fatalf("nextCode(%x) read %d bytes", s, n)
				}
				s = s[n:]
				c.text(code)
				c.cid(code)
			}
		})
	})
}

// qpdfEncrypt are /Encrypt dictionaries qpdf 11.3 wrote for the empty
// user password, with the first /ID of their files.
var qpdfEncrypt = []struct{ name, dict, id string }{
	{"RC4 40-bit, revision 2", "<< /Filter /Standard /Length 40 /O <c92422687facee686e373f10b5c7d04738053152f7e2ee30e11c69ec442576ab> /P -4 /R 2 /U <386976cc7786d0f73c0b77a0ac6fd5923246dd065a711e828e451c48a0c50e13> /V 1 >>", "<747e67af356ed46d6e363c95ee016a12>"},
	{"AES-128, revision 4", "<< /CF << /StdCF << /AuthEvent /DocOpen /CFM /AESV2 /Length 16 >> >> /Filter /Standard /Length 128 /O <566fa873ee33c797cd3b904fdadf814afa34df9a38f6ed41b984e2c6da2aa6f5> /P -4 /R 4 /StmF /StdCF /StrF /StdCF /U <6bb270140ea4c89049bfc5fd785a21490122456a91bae5134273a6db134c87c4> /V 4 >>", "<747e67af356ed46d6e363c95ee016a12>"},
	{"AES-256, revision 5", "<< /CF << /StdCF << /AuthEvent /DocOpen /CFM /AESV3 /Length 32 >> >> /Filter /Standard /Length 256 /O <53c8bef4057800a60720b883c0609770901b43ddcacd1d16f69acbedbf72c7349bc2091caa872c9b52889e6c9e963d9f> /OE <9becbc668cabeef96a9ca58875634a69606e74fff170376aaf3eefba2c6e6c58> /P -4 /Perms <4dcca7fc36a54d9edd24c6e280c1ab92> /R 5 /StmF /StdCF /StrF /StdCF /U <29ac56ce4b5ce12f0bf1b8beea3e31718932408f737d226c2ec1fd1a4bdbe440ff16a69a4b5524e23bde64c997def674> /UE <d229f7aaaae693457f06a9984c86d9717bd13a63a4f7f146d92ee89e5ac6ddde> /V 5 >>", ""},
	{"AES-256, revision 6", "<< /CF << /StdCF << /AuthEvent /DocOpen /CFM /AESV3 /Length 32 >> >> /Filter /Standard /Length 256 /O <0a23544aee76180b1b6bfe42b21fdaff9516a932e297ba21668b8527018bc5b62590fc9b744b7ef2f874c244f974519a> /OE <39430d39e3234b9e6155aa3c76e4dc6ed566d42d82e2048dd766b6ac7a6f4c05> /P -4 /Perms <ede8da31d08a998a358865fcd58a3f3f> /R 6 /StmF /StdCF /StrF /StdCF /U <e3cce2d48c7325ceec603701de7c1aa38bd64cd1f5f91b4ba2c14011988f8e4634b4393993ce650b6287605aba16339a> /UE <7cf3d92a3a2a574daaafc6b6112c5a195aaddc9102e1c4653cae0664e22c8eb9> /V 5 >>", ""},
}

// encryptDict parses an /Encrypt dictionary into a document whose
// trailer has the given first /ID.
func encryptDict(t *testing.T, dict, id []byte) (*Document, Object) {
	d := fuzzDoc(t, nil)
	o, _, _ := d.newParser(dict).object(0)
	d.trailer = Dict{"ID": Array{String(id), String(id)}}
	return d, o
}

// TestNewCrypt opens qpdf's dictionaries with the empty password, and
// wants the password error when /U is changed by a bit.
func TestNewCrypt(t *testing.T) {
	for _, tt := range qpdfEncrypt {
		t.Run(tt.name, func(t *testing.T) {
			id := hexString(t, tt.id)
			d, o := encryptDict(t, []byte(tt.dict), id)
			if _, err := d.newCrypt(o); err != nil {
				t.Fatalf("newCrypt error = %v; want the empty password to open it", err)
			}
			u := o.(Dict)["U"].(String)
			u[3] ^= 1
			if _, err := d.newCrypt(o); err != ErrPassword {
				t.Errorf("newCrypt with /U changed: error = %v; want ErrPassword", err)
			}
		})
	}
}

func hexString(t *testing.T, s string) []byte {
	if s == "" {
		return nil
	}
	o, _, err := newParserOf(s).object(0)
	if err != nil {
		t.Fatal(err)
	}
	return o.(String)
}

func newParserOf(s string) *parser {
	return &parser{lx: newSliceLexer([]byte(s)), maxDepth: 8, maxElems: 8}
}

// FuzzEncrypt reads /Encrypt dictionaries and, when one opens, decrypts
// a string and a stream with it.
func FuzzEncrypt(f *testing.F) {
	for _, s := range qpdfEncrypt {
		f.Add([]byte(s.dict), []byte(s.id), []byte("0123456789abcdef0123456789abcdef"))
	}
	f.Fuzz(func(t *testing.T, dict, id, data []byte) {
		inTime(t, func() {
			d, o := encryptDict(t, dict, id)
			c, err := d.newCrypt(o)
			typed(t, err)
			if err != nil {
				return
			}
			_, err = c.decryptString(data, Ref{Num: 3})
			typed(t, err)
			for _, m := range []method{c.stm, c.str, methodRC4, methodAESV2} {
				if m == methodAESV2 && len(c.key) != 16 {
					continue
				}
				r, err := c.decryptStream(data, m, Ref{Num: 3})
				typed(t, err)
				if err == nil {
					_, err = io.Copy(io.Discard, r)
					typed(t, err)
				}
			}
		})
	})
}

// FuzzFont reads a font dictionary and decodes codes with it.
func FuzzFont(f *testing.F) {
	f.Add([]byte("<</Subtype /Type0 /Encoding /Identity-H /DescendantFonts [<</W [1 [500 600] 10 20 300] /DW 800>>]>>"), []byte("\x00\x01\x00\x0a\xff"))
	f.Add([]byte("<</Subtype /Type0 /Encoding /UniJIS-UCS2-H>>"), []byte("\x30\x42\xd8\x3d\xde\x00"))
	f.Add([]byte("<</Subtype /TrueType /FirstChar 32 /Widths [250 300] /Encoding <</BaseEncoding /MacRomanEncoding /Differences [65 /a_b /uni00410042 /g123 /Aacute.sc]>>>>"), []byte(" ABCDE\x80\xff"))
	f.Add([]byte("<</Subtype /Type3 /FontMatrix [0.01 0 0 0.01 0 0] /FirstChar 0 /Widths [10] /FontDescriptor <</Flags 4>>>>"), []byte("\x00\xf0\x41"))
	f.Fuzz(func(t *testing.T, dict, codes []byte) {
		inTime(t, func() {
			d := fuzzDoc(t, nil)
			o, _, _ := d.newParser(dict).object(0)
			font, err := d.loadFont(o)
			typed(t, err)
			if font == nil {
				return
			}
			for s := codes; len(s) > 0; {
				g := font.next(s)
				if g.n < 1 || g.n > len(s) || !utf8.ValidString(g.text) {
					t.Fatalf("next(%x) = %+v", s, g)
				}
				s = s[g.n:]
			}
		})
	})
}

// FuzzContent runs a page's content stream with Helvetica as /F1 and,
// as the form /Fm, a form whose content is the same stream (so that it
// draws itself when it draws /Fm).
func FuzzContent(f *testing.F) {
	f.Add([]byte("BT /F1 12 Tf 72 700 Td [(Hello)-300(world)] TJ T* (next) ' 1 2 (quote) \" ET"))
	f.Add([]byte("q 1 0 0 1 5 5 cm BI /W 1 /H 1 /BPC 8 /CS /G ID \x00 EI Q /Fm Do BT /F1 1 Tf 0 1 -1 0 300 100 Tm 3 Tr 2 Tz 1 Ts 4 TL (up) Tj ET"))
	f.Add([]byte("<</MCID 0>> BDC BT /F9 12 Tf 1 0 0 1 72 700 Tm <48656c6c6f> Tj 72 0 TD (x) Tj ET EMC"))
	f.Fuzz(func(t *testing.T, content []byte) {
		inTime(t, func() {
			d := fuzzDoc(t, nil)
			helvetica := Dict{"Type": Name("Font"), "Subtype": Name("Type1"), "BaseFont": Name("Helvetica")}
			res := Dict{"Font": Dict{"F1": helvetica}, "XObject": Dict{"Fm": &Stream{Dict: Dict{"Subtype": Name("Form")}, Raw: content}}}
			page := Page{dict: Dict{"Contents": &Stream{Dict: Dict{}, Raw: content}}, res: res}
			_, err := d.Text(page, func(line []byte) {
				if !utf8.Valid(line) {
					t.Fatalf("line %q is not UTF-8", line)
				}
			})
			typed(t, err)
		})
	})
}
