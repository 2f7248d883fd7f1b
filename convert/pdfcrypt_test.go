package convert_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// qpdf runs qpdf on a PDF with args before the input and output files,
// and returns its output.
func qpdf(t testing.TB, data []byte, args ...string) []byte {
	t.Helper()
	bin := needTool(t, "qpdf", "qpdf")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		t.Fatal(err)
	}
	runTool(t, dir, bin, append(args, in, out)...)
	return readOutput(t, out)
}

// qpdfEncrypt encrypts a PDF with qpdf: opts are qpdf's general options,
// enc the key length and options that go between --encrypt's passwords
// and its closing --.
func qpdfEncrypt(t testing.TB, data []byte, opts []string, user string, enc ...string) []byte {
	t.Helper()
	args := append(append(append([]string(nil), opts...), "--encrypt", user, "owner-secret"), enc...)
	return qpdf(t, data, append(args, "--")...)
}

// weak lets qpdf write RC4, which it refuses by default: the files users
// have still use it.
var weak = []string{"--allow-weak-crypto"}

// TestPDFEncrypted reads report.pdf (LibreOffice's) encrypted by qpdf
// with an empty user password, in each of the standard security
// handler's revisions, and wants the text of the unencrypted file.
func TestPDFEncrypted(t *testing.T) {
	report, err := os.ReadFile("testdata/pdf/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	plain := convertPDF(t, report)
	for _, mark := range []string{"PAGEONEMARK", "CJKMARK", "東京", "RIGHTEND"} {
		if !strings.Contains(plain.Text, mark) {
			t.Fatalf("the unencrypted text lacks %q:\n%s", mark, plain.Text)
		}
	}
	tests := []struct {
		name string
		opts []string
		enc  []string
		// has is what the encrypted file must hold, to show that qpdf
		// wrote what the case is about.
		has []string
	}{
		{"RC4 40-bit, revision 2", weak, []string{"40"}, []string{"/R 2", "/V 1"}},
		{"RC4 128-bit, revision 3", weak, []string{"128"}, []string{"/R 3", "/V 2"}},
		{"RC4 128-bit in crypt filters, revision 4", weak, []string{"128", "--force-V4"}, []string{"/R 4", "/CFM /V2"}},
		{"AES-128, revision 4", nil, []string{"128", "--use-aes=y"}, []string{"/R 4", "/CFM /AESV2"}},
		{"AES-128, metadata in the clear", nil, []string{"128", "--use-aes=y", "--cleartext-metadata"}, []string{"/EncryptMetadata false"}},
		{"AES-128 in object streams", []string{"--object-streams=generate"}, []string{"128", "--use-aes=y"}, []string{"/CFM /AESV2", "/Type /ObjStm", "/Type /XRef"}},
		{"RC4 128-bit in object streams", append([]string{"--object-streams=generate"}, weak...), []string{"128"}, []string{"/R 3", "/Type /ObjStm"}},
		{"AES-256, revision 5", nil, []string{"256", "--force-R5"}, []string{"/R 5", "/CFM /AESV3"}},
		{"AES-256, revision 6", nil, []string{"256"}, []string{"/R 6", "/CFM /AESV3"}},
		{"AES-256 in object streams", []string{"--object-streams=generate"}, []string{"256"}, []string{"/R 6", "/Type /ObjStm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := qpdfEncrypt(t, report, tt.opts, "", tt.enc...)
			for _, h := range append([]string{"/Encrypt"}, tt.has...) {
				if !strings.Contains(string(data), h) {
					t.Fatalf("qpdf's file lacks %q", h)
				}
			}
			res := convertPDF(t, data)
			if res.Text != plain.Text || res.Description != plain.Description {
				t.Errorf("encrypted: %s\n%s\nwant as unencrypted: %s\n%s", res.Description, res.Text, plain.Description, plain.Text)
			}
		})
	}
}

// TestPDFPassword wants a typed error that says a password is needed
// for a file whose user password is not empty.
func TestPDFPassword(t *testing.T) {
	report, err := os.ReadFile("testdata/pdf/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts []string
		enc  []string
	}{
		{"RC4 40-bit", weak, []string{"40"}},
		{"RC4 128-bit", weak, []string{"128"}},
		{"AES-128", nil, []string{"128", "--use-aes=y"}},
		{"AES-256, revision 5", nil, []string{"256", "--force-R5"}},
		{"AES-256, revision 6", nil, []string{"256"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := qpdfEncrypt(t, report, tt.opts, "user-secret", tt.enc...)
			_, err := convert.Default().Convert(context.Background(), convert.Input{Name: "locked.pdf", Data: data})
			var fe *convert.FormatError
			if !errors.As(err, &fe) || fe.Kind != "pdf" || !strings.Contains(err.Error(), "needs a password") {
				t.Errorf("Convert error = %v (%T); want a *convert.FormatError saying it needs a password", err, err)
			}
		})
	}
}

// The standard security handler's values that qpdf 11.3 wrote for the
// empty user password with --static-id and AES-128 (revision 4): the
// key depends on /O, /P and the first /ID only, so a hand-written file
// with these values opens with the empty password, whatever its
// content, and its streams are decrypted with the key they give.
const (
	qpdfID = "<747e67af356ed46d6e363c95ee016a12><31415926535897932384626433832795>"
	qpdfO  = "<566fa873ee33c797cd3b904fdadf814afa34df9a38f6ed41b984e2c6da2aa6f5>"
	qpdfU  = "<6bb270140ea4c89049bfc5fd785a21490122456a91bae5134273a6db134c87c4>"
	// /U with --cleartext-metadata (/EncryptMetadata false), which
	// changes the key.
	qpdfUClearMeta = "<cd6bd864f26d085ef4b769175297ec6b0122456a91bae5134273a6db134c87c4>"
)

// encryptedPDF writes a one-page document whose /Encrypt dictionary
// holds the standard handler's values above and the given entries, its
// content stream written as given and pagesExtra added to its page tree
// node.
func encryptedPDF(encrypt string, content pdfStream, pagesExtra string) []byte {
	f := &pdfFile{trailerExtra: " /Encrypt 6 0 R /ID [" + qpdfID + "]"}
	f.add("<</Type /Catalog /Pages 2 0 R>>")
	f.add("<</Type /Pages /Kids [3 0 R] /Count 1" + pagesExtra + ">>")
	f.add("<</Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources <</Font <</F1 5 0 R>>>>>>")
	f.add(content)
	f.add("<</Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding>>")
	// A later key wins: encrypt can replace /Filter.
	f.add("<</Filter /Standard /O " + qpdfO + " /U " + qpdfU + " /P -4 " + encrypt + ">>")
	return f.bytes()
}

const aes128 = "/V 4 /R 4 /Length 128 /CF <</StdCF <</CFM /AESV2 /Length 16>>>> /StmF /StdCF /StrF /StdCF"

// TestPDFCryptFilters reads files whose streams and strings the
// Identity crypt filter leaves in the clear: by /StmF and /StrF, and by
// a stream's own /Crypt filter in a file whose other streams are AES;
// and a metadata stream, which /EncryptMetadata false leaves in the
// clear (a content stream typed /Metadata here, so that its text shows
// that it was read as it is).
func TestPDFCryptFilters(t *testing.T) {
	content := deflated([]byte(textAt(72, 700, 12, "IDENTITYMARK in the clear")))
	tests := []struct {
		name string
		data []byte
	}{
		{"/StmF and /StrF /Identity", encryptedPDF("/V 4 /R 4 /Length 128 /CF <</StdCF <</CFM /AESV2 /Length 16>>>> /StmF /Identity /StrF /Identity",
			pdfStream{dict: "/Length " + strconv.Itoa(len(content)) + " /Filter /FlateDecode", raw: content}, " /Label (in the clear)")},
		{"a stream's /Crypt filter naming /Identity", encryptedPDF(aes128,
			pdfStream{dict: "/Length " + strconv.Itoa(len(content)) + " /Filter [/Crypt /FlateDecode] /DecodeParms [<</Type /CryptFilterDecodeParms /Name /Identity>> null]", raw: content}, "")},
		{"a metadata stream under /EncryptMetadata false", encryptedPDF(aes128+" /U "+qpdfUClearMeta+" /EncryptMetadata false",
			pdfStream{dict: "/Type /Metadata /Length " + strconv.Itoa(len(content)) + " /Filter /FlateDecode", raw: content}, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertPDF(t, tt.data)
			if want := "--- page 1 ---\nIDENTITYMARK in the clear\n"; res.Text != want {
				t.Errorf("Text = %q; want %q", res.Text, want)
			}
		})
	}
}

// TestPDFEncryptedHostile wants a typed error that says what is wrong
// for encryption that is broken, from the dictionary to the data.
func TestPDFEncryptedHostile(t *testing.T) {
	clear := pdfStream{data: []byte(textAt(72, 700, 12, "never shown"))}
	// AES data: 20 bytes is an IV and a cut block; 48 bytes of junk
	// decrypts to a last block whose padding is wrong.
	cut := pdfStream{dict: "/Length 20", raw: []byte("0123456789abcdefghij")}
	junk := pdfStream{dict: "/Length 48", raw: []byte("0123456789abcdef0123456789abcdefGHIJKLMNOPQRSTUV")}
	short := "<" + strings.Repeat("00", 16) + ">"
	tests := []struct {
		name   string
		data   []byte
		reason string
	}{
		{"a key length of 44 bits", encryptedPDF("/V 2 /R 3 /Length 44", clear, ""), "key length of 44 bits is not 40 to 128"},
		{"a key length of 4096 bits", encryptedPDF("/V 2 /R 3 /Length 4096", clear, ""), "key length of 4096 bits"},
		{"AES-128 with a 40-bit key", encryptedPDF("/V 4 /R 4 /Length 40 /CF <</StdCF <</CFM /AESV2>>>> /StmF /StdCF /StrF /StdCF", clear, ""), "key length of 40 bits does not fit AES-128"},
		{"AES-256 under revision 4", encryptedPDF("/V 4 /R 4 /Length 128 /CF <</StdCF <</CFM /AESV3>>>> /StmF /StdCF /StrF /StdCF", clear, ""), "does not fit AES-256"},
		{"AES-256 with a short /UE", encryptedPDF("/V 5 /R 6 /UE "+short+" /CF <</StdCF <</CFM /AESV3>>>> /StmF /StdCF /StrF /StdCF", clear, ""), "too short for AES-256"},
		{"a crypt filter not defined", encryptedPDF("/V 4 /R 4 /Length 128 /StmF /Nowhere", clear, ""), "crypt filter /Nowhere is not defined"},
		{"an unknown crypt method", encryptedPDF("/V 4 /R 4 /Length 128 /CF <</StdCF <</CFM /ROT13>>>> /StmF /StdCF", clear, ""), "crypt method /ROT13"},
		{"revision 7", encryptedPDF("/V 5 /R 7", clear, ""), "revision 7 is not supported"},
		{"a public-key handler", encryptedPDF("/Filter /Adobe.PubSec /V 4 /R 4", clear, ""), "security handler /Adobe.PubSec"},
		{"/O and /U too short", encryptedPDF("/V 2 /R 3 /Length 128 /O <0011> /U <0011>", clear, ""), "shorter than 32 bytes"},
		{"an AES stream cut inside a block", encryptedPDF(aes128, cut, ""), "object 4 0 does not decrypt: its AES data of 20 bytes is not whole 16-byte blocks"},
		{"an AES stream with a wrong padding", encryptedPDF(aes128, junk, ""), "object 4 0 does not decrypt: its AES padding is wrong"},
		{"an AES string cut inside a block", encryptedPDF(aes128, junk, " /Label <000102030405>"), "object 2 0 does not decrypt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			heap := allocated(func() {
				_, err = convert.Default().Convert(context.Background(), convert.Input{Name: "broken.pdf", Data: tt.data})
			})
			var fe *convert.FormatError
			if !errors.As(err, &fe) || fe.Kind != "pdf" || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("Convert error = %v (%T); want a *convert.FormatError saying %q", err, err, tt.reason)
			}
			if heap > 1<<20 {
				t.Errorf("Convert allocated %d bytes; want at most 1 MiB", heap)
			}
		})
	}
}
