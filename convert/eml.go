package convert

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/htmlindex"
)

// EML returns the converter of e-mail messages (message/rfc822, .eml):
// the From, To, Cc, Date and Subject headers, the text body (the plain
// part of an alternative, else the HTML part as Markdown), and the list of
// attachments with their types and sizes. Encoded words, quoted-printable,
// base64 and the charsets golang.org/x/text knows are decoded.
func EML() Converter { return emlConverter{} }

type emlConverter struct{}

func (emlConverter) Format() Format {
	return Format{
		Kind:       "eml",
		MediaTypes: []string{"message/rfc822"},
		Extensions: []string{".eml"},
		Sniff:      func(in *Input, _ Limits) bool { return looksLikeMail(in.Data) },
	}
}

// looksLikeMail reports whether data starts with a mail header: lines of
// fields up to a blank line, among them From or Received or Message-ID,
// and one more of the fields every message has.
func looksLikeMail(data []byte) bool {
	head := data[:min(len(data), 64<<10)]
	end := bytes.Index(head, []byte("\n\n"))
	if e := bytes.Index(head, []byte("\r\n\r\n")); e >= 0 && (end < 0 || e < end) {
		end = e
	}
	if end < 0 || !isText(head[:end]) {
		return false
	}
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(head[:end:end], "\r\n\r\n"...)))).ReadMIMEHeader()
	if err != nil {
		return false
	}
	known := 0
	for _, f := range []string{"From", "To", "Date", "Subject", "Message-Id", "Received", "Mime-Version", "Return-Path"} {
		if h.Get(f) != "" {
			known++
		}
	}
	return known >= 2 && (h.Get("From") != "" || h.Get("Received") != "" || h.Get("Message-Id") != "")
}

var wordDecoder = &mime.WordDecoder{CharsetReader: func(charset string, r io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return nil, err
	}
	return enc.NewDecoder().Reader(r), nil
}}

func decodeHeader(v string) string {
	if d, err := wordDecoder.DecodeHeader(v); err == nil {
		return d
	}
	return v
}

// emlReader walks a message's parts.
type emlReader struct {
	ctx         context.Context
	lim         Limits
	budget      *budget
	parts       int
	plain, html []string
	attachments []Part
	types       []string
}

func (emlConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(in.Data))
	if err != nil {
		return nil, formatErr("", "not a mail message", err)
	}
	r := &emlReader{ctx: ctx, lim: lim, budget: newBudget(lim.MaxUnpacked)}
	if err := r.walk(textproto.MIMEHeader(msg.Header), msg.Body, 0); err != nil {
		return nil, err
	}
	m := mailText{kind: "eml", what: "e-mail", atts: r.attachments, types: r.types}
	m.subject = decodeHeader(msg.Header.Get("Subject"))
	m.from = decodeHeader(msg.Header.Get("From"))
	for _, f := range []string{"From", "To", "Cc", "Date", "Subject"} {
		if v := msg.Header.Get(f); v != "" {
			m.headers = append(m.headers, [2]string{f, decodeHeader(v)})
		}
	}
	if m.body = strings.Join(r.plain, "\n\n"); m.body == "" {
		m.body = strings.Join(r.html, "\n\n")
	}
	return m.result(lim), nil
}

// mailText is a message as the EML and MSG converters give it: its
// headers, body and attachments as lines of text, described by what it
// is ("e-mail"), its subject, its sender and its number of attachments.
type mailText struct {
	kind, what    string
	headers       [][2]string // name and value, in order; each is written
	subject, from string
	body          string
	atts          []Part
	types         []string // the media types of atts
}

func (m *mailText) result(lim Limits) *Result {
	s := newSink(lim.MaxChars, "lines")
	for _, h := range m.headers {
		s.extra(h[0] + ": " + strings.Join(strings.Fields(h[1]), " ") + "\n")
	}
	if body := strings.TrimSpace(strings.ReplaceAll(m.body, "\r\n", "\n")); body != "" {
		s.extra("\n")
		for line := range strings.Lines(body + "\n") {
			s.unit(line)
		}
	}
	if len(m.atts) > 0 {
		s.extra("\nAttachments:\n")
		for i, a := range m.atts {
			s.unit("- " + quoteName(a.Name) + " (" + m.types[i] + ", " + plural(int(a.Size), "byte") + ")\n")
		}
	}
	desc := m.what
	if m.subject != "" {
		desc += " " + strconv.Quote(m.subject)
	}
	if m.from != "" {
		desc += " from " + m.from
	}
	if len(m.atts) > 0 {
		desc += ", " + plural(len(m.atts), "attachment")
	}
	return &Result{Kind: m.kind, As: "text", Description: desc, Parts: m.atts, Text: s.text(), Omitted: s.omit}
}

// walk reads one part: a multipart is walked part by part, a text part
// that is not an attachment becomes body text (plain text preferred to
// HTML when the message has both, as an alternative does), anything else
// an attachment.
func (r *emlReader) walk(h textproto.MIMEHeader, body io.Reader, depth int) error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	if r.parts++; r.parts > r.lim.MaxEntries {
		return limitErr("", "message parts", int64(r.lim.MaxEntries))
	}
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "text/plain; charset=us-ascii"
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, params = "application/octet-stream", nil
	}
	disp, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	name := decodeHeader(dparams["filename"])
	if name == "" {
		name = decodeHeader(params["name"])
	}
	if strings.HasPrefix(mt, "multipart/") {
		if depth >= r.lim.MaxDepth {
			return limitErr("", "levels of MIME nesting", int64(r.lim.MaxDepth))
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return formatErr("", "malformed multipart message", err)
			}
			if err := r.walk(p.Header, p, depth+1); err != nil {
				return err
			}
		}
	}
	data, err := io.ReadAll(r.budget.reader(transferDecoder(h.Get("Content-Transfer-Encoding"), body)))
	if err != nil {
		if e, ok := err.(*LimitError); ok {
			return e
		}
		return formatErr("", "malformed message part", err)
	}
	isText := (mt == "text/plain" || mt == "text/html") && disp != "attachment" && name == ""
	if !isText {
		if name == "" {
			name = "(unnamed)"
		}
		r.attachments = append(r.attachments, Part{Kind: "attachment", Name: name, Size: int64(len(data))})
		r.types = append(r.types, mt)
		return nil
	}
	text := decodeCharset(data, params["charset"])
	if mt == "text/html" {
		md, err := htmlMarkdown(r.ctx, text, r.lim)
		if err != nil {
			return err
		}
		r.html = append(r.html, md)
	} else {
		r.plain = append(r.plain, text)
	}
	return nil
}

func transferDecoder(cte string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &base64Cleaner{r: r})
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// base64Cleaner drops the spaces and tabs some mailers leave in base64
// bodies; the decoder itself skips line ends.
type base64Cleaner struct{ r io.Reader }

func (c *base64Cleaner) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	out := p[:0]
	for _, b := range p[:n] {
		if b != ' ' && b != '\t' {
			out = append(out, b)
		}
	}
	return len(out), err
}

func decodeCharset(data []byte, charset string) string {
	switch strings.ToLower(charset) {
	case "", "utf-8", "us-ascii", "utf8":
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return string(out)
}
