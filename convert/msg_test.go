package convert_test

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/keel-go/keel/convert"
)

// utf16le encodes s as Outlook stores Unicode properties.
func utf16le(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		binary.LittleEndian.PutUint16(b[2*i:], c)
	}
	return b
}

// msgProps is a property stream: a header of 32 bytes at the message's
// root (8 in recipients and attachments), then 16-byte entries of a tag,
// flags and an 8-byte value.
func msgProps(root bool, props map[uint32]uint64) []byte {
	b := make([]byte, 8)
	if root {
		b = make([]byte, 32)
	}
	for tag, v := range props {
		e := make([]byte, 16)
		binary.LittleEndian.PutUint32(e, tag)
		binary.LittleEndian.PutUint32(e[4:], 6) // readable, writable
		binary.LittleEndian.PutUint64(e[8:], v)
		b = append(b, e...)
	}
	return b
}

// fileTime is t as a FILETIME.
func fileTime(t time.Time) uint64 { return uint64(t.Unix()+11_644_473_600) * 10_000_000 }

// outlookMessage is a message laid out as Outlook saves one: its
// properties as __substg1.0_ streams, the fixed ones in the property
// stream, a storage per recipient and attachment, and the named
// property map; the body is plain text, or HTML only when html is set.
func outlookMessage(t testing.TB, html bool) []byte {
	t.Helper()
	sent := time.Date(2024, 3, 1, 9, 30, 0, 0, time.UTC)
	recip := func(n int, name, addr string, kind uint64) *cfbNode {
		return storage("__recip_version1.0_#0000000"+string(rune('0'+n)),
			stream("__substg1.0_3001001F", utf16le(name)),
			stream("__substg1.0_39FE001F", utf16le(addr)),
			stream("__properties_version1.0", msgProps(false, map[uint32]uint64{0x0C150003: kind})))
	}
	attachment := make([]byte, 5000)
	for i := range attachment {
		attachment[i] = byte(i)
	}
	kids := []*cfbNode{
		stream("__substg1.0_0037001F", utf16le("Quarterly figures QZMSGSUBJECT")),
		stream("__substg1.0_0C1A001F", utf16le("Ann Lee")),
		stream("__substg1.0_5D01001F", utf16le("ann@example.com")),
		stream("__properties_version1.0", msgProps(true, map[uint32]uint64{0x00390040: fileTime(sent)})),
		storage("__nameid_version1.0", stream("__substg1.0_00020102", nil)),
		recip(0, "Bo Chen", "bo@example.com", 1),
		recip(1, "Ελένη Πάππα", "eleni@example.com", 2),
		recip(2, "Secret Bcc", "hidden@example.com", 3),
		storage("__attach_version1.0_#00000000",
			stream("__substg1.0_3707001F", utf16le("figures.xlsx")),
			stream("__substg1.0_370E001F", utf16le("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")),
			stream("__substg1.0_37010102", attachment),
			stream("__properties_version1.0", msgProps(false, nil))),
	}
	if html {
		kids = append(kids, stream("__substg1.0_10130102", []byte(`<html><head><style>p{color:red}</style></head><body><p>Hello <b>team</b>,</p><p>figures attached QZMSGBODY.</p><p>Ευχαριστώ</p></body></html>`)))
	} else {
		kids = append(kids, stream("__substg1.0_1000001F", utf16le("Hello team,\r\nfigures attached QZMSGBODY.\r\nΕυχαριστώ")))
	}
	data, _ := writeCFB(t, storage("Root Entry", kids...))
	return data
}

func TestMSG(t *testing.T) {
	head := "From: Ann Lee <ann@example.com>\nTo: Bo Chen <bo@example.com>\nCc: Ελένη Πάππα <eleni@example.com>\nDate: Fri, 01 Mar 2024 09:30:00 +0000\nSubject: Quarterly figures QZMSGSUBJECT\n\n"
	tail := "\nAttachments:\n- figures.xlsx (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, 5,000 bytes)\n"
	tests := []struct {
		name string
		html bool
		body string
	}{
		{"plain body", false, "Hello team,\nfigures attached QZMSGBODY.\nΕυχαριστώ\n"},
		{"HTML body only", true, "Hello **team**,\n\nfigures attached QZMSGBODY.\n\nΕυχαριστώ\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: "figures.msg", Data: outlookMessage(t, tt.html)})
			if err != nil {
				t.Fatal(err)
			}
			want := head + tt.body + tail
			if res.Kind != "msg" || res.Text != want {
				t.Errorf("Convert(figures.msg) = kind %q, text\n%s\nwant kind msg, text\n%s", res.Kind, res.Text, want)
			}
			if d := `Outlook message "Quarterly figures QZMSGSUBJECT" from Ann Lee <ann@example.com>, 1 attachment`; res.Description != d {
				t.Errorf("Convert(figures.msg) description = %q; want %q", res.Description, d)
			}
		})
	}
}

// TestHostileCompoundFiles damages a Compound File's structures the ways
// a hostile file would: each ends in a typed error without reading more
// than the file.
func TestHostileCompoundFiles(t *testing.T) {
	text := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(i%26)
		}
		return b
	}
	doc := func(size int) ([]byte, cfbLayout) {
		return writeCFB(t, storage("Root Entry", stream("WordDocument", text(size)), stream("1Table", text(100))))
	}
	le := binary.LittleEndian
	tests := []struct {
		name   string
		file   func() ([]byte, cfbLayout)
		damage func(b []byte, lay cfbLayout)
		want   string
	}{
		{"a FAT cycle", func() ([]byte, cfbLayout) { return doc(20_000) }, func(b []byte, lay cfbLayout) {
			// The stream's third sector points back to its first.
			s := lay.starts["WordDocument"]
			le.PutUint32(b[lay.fatOffset+4*(s+2):], uint32(s))
		}, "FAT cycle"},
		{"a sector chain past the end", func() ([]byte, cfbLayout) { return doc(20_000) }, func(b []byte, lay cfbLayout) {
			le.PutUint32(b[lay.entries["WordDocument"]+116:], 0x00FFFFF0)
		}, "past the end"},
		{"a huge declared stream", func() ([]byte, cfbLayout) { return doc(20_000) }, func(b []byte, lay cfbLayout) {
			le.PutUint32(b[lay.entries["WordDocument"]+120:], 0xFFFFFFF0)
		}, "more bytes than the file holds"},
		{"a stream longer than its chain", func() ([]byte, cfbLayout) { return doc(20_000) }, func(b []byte, lay cfbLayout) {
			le.PutUint32(b[lay.entries["WordDocument"]+120:], 20_000+2048)
		}, "longer than its sector chain"},
		{"a directory that loops", func() ([]byte, cfbLayout) { return doc(20_000) }, func(b []byte, lay cfbLayout) {
			le.PutUint32(b[lay.entries["WordDocument"]+72:], 0) // its right sibling is the root
		}, "directory tree loops"},
		{"a directory entry past the directory", func() ([]byte, cfbLayout) { return doc(20_000) }, func(b []byte, lay cfbLayout) {
			le.PutUint32(b[lay.entries["Root Entry"]+76:], 5000)
		}, "past the directory"},
		{"a DIFAT that loops", func() ([]byte, cfbLayout) { return doc(200_000) }, func(b []byte, lay cfbLayout) {
			// 109 FAT sectors in the header and 254 in two DIFAT sectors,
			// of which the first points to itself.
			le.PutUint32(b[44:], 109+254)
			le.PutUint32(b[68:], 1)
			le.PutUint32(b[72:], 2)
			le.PutUint32(b[512*2+508:], 1)
		}, "DIFAT chain loops"},
		{"more FAT sectors than the file has", func() ([]byte, cfbLayout) { return doc(20_000) }, func(b []byte, lay cfbLayout) {
			le.PutUint32(b[44:], 1<<20)
		}, "more FAT sectors"},
		{"a mini stream chain that loops", func() ([]byte, cfbLayout) { return doc(3000) }, func(b []byte, lay cfbLayout) {
			// The mini FAT's first entry points to itself.
			s := int(le.Uint32(b[60:]))
			le.PutUint32(b[512*(s+1):], 0)
		}, "FAT cycle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, lay := tt.file()
			tt.damage(data, lay)
			var err error
			heap := allocated(func() {
				_, err = convert.Default().Convert(context.Background(), convert.Input{Name: "report.doc", Data: data})
			})
			var fe *convert.FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Convert(damaged report.doc) error = %v (%T); want a *convert.FormatError saying %q", err, err, tt.want)
			}
			if max := uint64(2*len(data) + 1<<20); heap > max {
				t.Errorf("Convert(damaged report.doc) allocated %d bytes; want at most %d for a file of %d", heap, max, len(data))
			}
			t.Logf("%v; %d bytes allocated", err, heap)
		})
	}
}
