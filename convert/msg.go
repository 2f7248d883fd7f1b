package convert

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// MSG returns the converter of Outlook messages (.msg, a Compound File
// of MAPI properties) to text, by the same rules as [EML]: From, To, Cc,
// Date and Subject, the body (plain text preferred to HTML, HTML turned
// into Markdown), and the attachments with their types and sizes.
func MSG() Converter { return msgConverter{} }

type msgConverter struct{}

func (msgConverter) Format() Format {
	return Format{
		Kind:       "msg",
		MediaTypes: []string{"application/vnd.ms-outlook", "application/x-msg"},
		Extensions: []string{".msg"},
		Sniff: func(in *Input, lim Limits) bool {
			return cfbHas(in, lim, "__properties_version1.0") && cfbHas(in, lim, "__nameid_version1.0")
		},
	}
}

// msgStorage reads the MAPI properties of one storage: the message's
// root, a recipient's or an attachment's.
type msgStorage struct {
	c   *cfb
	dir int
}

// str returns a string property: Unicode (001F) or 8-bit (001E, read as
// Windows-1252, the code page Outlook uses for most Western mail).
func (m msgStorage) str(id uint16) (string, error) {
	name := fmt.Sprintf("__substg1.0_%04X", id)
	if e := m.c.child(m.dir, name+"001F"); e != nil && e.typ == 2 {
		b, err := m.c.read(e)
		if err != nil {
			return "", err
		}
		return strings.TrimRight(utf16LE(b), "\x00"), nil
	}
	if e := m.c.child(m.dir, name+"001E"); e != nil && e.typ == 2 {
		b, err := m.c.read(e)
		if err != nil {
			return "", err
		}
		return strings.TrimRight(decode8(b), "\x00"), nil
	}
	return "", nil
}

// decode8 decodes 8-bit text: UTF-8 when it is valid, else Windows-1252.
func decode8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	s, _ := charmap.Windows1252.NewDecoder().Bytes(b)
	return string(s)
}

// bin returns a binary property's entry (0102), or nil.
func (m msgStorage) bin(id uint16) *cfbEntry {
	if e := m.c.child(m.dir, fmt.Sprintf("__substg1.0_%04X0102", id)); e != nil && e.typ == 2 {
		return e
	}
	return nil
}

// fixed returns the 8-byte value of a fixed-size property from the
// storage's property stream, whose header is 32 bytes at the message's
// root and 8 in recipients and attachments.
func (m msgStorage) fixed(id uint16, root bool) ([]byte, bool, error) {
	e := m.c.child(m.dir, "__properties_version1.0")
	if e == nil || e.typ != 2 {
		return nil, false, nil
	}
	b, err := m.c.read(e)
	if err != nil {
		return nil, false, err
	}
	pos := 8
	if root {
		pos = 32
	}
	for ; pos+16 <= len(b); pos += 16 {
		if binary.LittleEndian.Uint16(b[pos+2:]) == id {
			return b[pos+8 : pos+16], true, nil
		}
	}
	return nil, false, nil
}

// MAPI property IDs the converter reads.
const (
	mapiSubject         = 0x0037
	mapiSubmitTime      = 0x0039
	mapiSenderName      = 0x0C1A
	mapiSenderEmail     = 0x0C1F
	mapiSenderSMTP      = 0x5D01
	mapiRecipientType   = 0x0C15
	mapiDisplayName     = 0x3001
	mapiEmailAddress    = 0x3003
	mapiSMTPAddress     = 0x39FE
	mapiDeliveryTime    = 0x0E06
	mapiBody            = 0x1000
	mapiHTML            = 0x1013
	mapiAttachData      = 0x3701
	mapiAttachFilename  = 0x3704
	mapiAttachLongName  = 0x3707
	mapiAttachMIME      = 0x370E
	mapiTransportHeader = 0x007D
)

func (msgConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	c, err := in.cfb(lim)
	if err != nil {
		return nil, err
	}
	root := msgStorage{c: c, dir: 0}
	get := func(id uint16) string {
		if err != nil {
			return ""
		}
		var s string
		s, err = root.str(id)
		return strings.TrimSpace(s)
	}
	subject := get(mapiSubject)
	from := get(mapiSenderName)
	addr := get(mapiSenderSMTP)
	if addr == "" {
		addr = get(mapiSenderEmail)
	}
	body := get(mapiBody)
	if err != nil {
		return nil, err
	}
	if addr != "" && addr != from && strings.Contains(addr, "@") {
		from = strings.TrimSpace(from + " <" + addr + ">")
	}
	var to, cc []string
	var atts []Part
	var types []string
	for _, k := range c.entries[0].kids {
		e := &c.entries[k]
		if e.typ != 1 {
			continue
		}
		st := msgStorage{c: c, dir: k}
		switch {
		case strings.HasPrefix(e.name, "__recip_version1.0_"):
			name, err := st.str(mapiDisplayName)
			if err != nil {
				return nil, err
			}
			email, err := st.str(mapiSMTPAddress)
			if err == nil && email == "" {
				email, err = st.str(mapiEmailAddress)
			}
			if err != nil {
				return nil, err
			}
			who := strings.TrimSpace(name)
			if email != "" && email != name && strings.Contains(email, "@") {
				who = strings.TrimSpace(who + " <" + email + ">")
			}
			kind := uint32(1)
			if v, ok, err := st.fixed(mapiRecipientType, false); err != nil {
				return nil, err
			} else if ok {
				kind = binary.LittleEndian.Uint32(v)
			}
			if len(to)+len(cc) >= lim.MaxEntries {
				return nil, limitErr("", "recipients", int64(lim.MaxEntries))
			}
			switch kind {
			case 2:
				cc = append(cc, who)
			case 3: // Bcc: not in what the recipients saw
			default:
				to = append(to, who)
			}
		case strings.HasPrefix(e.name, "__attach_version1.0_"):
			if len(atts) >= lim.MaxEntries {
				return nil, limitErr("", "attachments", int64(lim.MaxEntries))
			}
			name, err := st.str(mapiAttachLongName)
			if err == nil && name == "" {
				name, err = st.str(mapiAttachFilename)
			}
			if err == nil && name == "" {
				name, err = st.str(mapiDisplayName)
			}
			if err != nil {
				return nil, err
			}
			mime, err := st.str(mapiAttachMIME)
			if err != nil {
				return nil, err
			}
			var size int64
			if data := st.bin(mapiAttachData); data != nil {
				size = int64(min(data.size, 1<<62))
			} else if obj := c.child(k, fmt.Sprintf("__substg1.0_%04X000D", mapiAttachData)); obj != nil {
				mime = "message/rfc822 (an attached message)"
			}
			if name == "" {
				name = "(unnamed)"
			}
			if mime == "" {
				mime = "application/octet-stream"
			}
			atts = append(atts, Part{Kind: "attachment", Name: name, Size: size})
			types = append(types, mime)
		}
	}
	date, err := msgDate(root)
	if err != nil {
		return nil, err
	}
	if body == "" {
		if e := root.bin(mapiHTML); e != nil {
			b, err := c.read(e)
			if err != nil {
				return nil, err
			}
			if body, err = htmlMarkdown(ctx, decode8(b), lim); err != nil {
				return nil, err
			}
		} else if html, err := root.str(mapiHTML); err != nil {
			return nil, err
		} else if html != "" {
			if body, err = htmlMarkdown(ctx, html, lim); err != nil {
				return nil, err
			}
		}
	}
	m := mailText{kind: "msg", what: "Outlook message", subject: subject, from: from, body: body, atts: atts, types: types}
	for _, h := range [][2]string{{"From", from}, {"To", strings.Join(to, ", ")}, {"Cc", strings.Join(cc, ", ")}, {"Date", date}, {"Subject", subject}} {
		if h[1] != "" {
			m.headers = append(m.headers, h)
		}
	}
	return m.result(lim), nil
}

// msgDate returns when the message was sent (or delivered), in RFC 1123
// form with its offset, as a Date header says it.
func msgDate(root msgStorage) (string, error) {
	for _, id := range []uint16{mapiSubmitTime, mapiDeliveryTime} {
		v, ok, err := root.fixed(id, true)
		if err != nil {
			return "", err
		}
		if ok {
			// A FILETIME: 100-nanosecond intervals since 1601-01-01 UTC.
			ft := int64(binary.LittleEndian.Uint64(v))
			if ft <= 0 {
				continue
			}
			secs := ft/10_000_000 - 11_644_473_600
			return time.Unix(secs, 0).UTC().Format(time.RFC1123Z), nil
		}
	}
	return "", nil
}
