package convert

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// RTF returns the converter of Rich Text Format documents to plain text:
// paragraphs and line breaks, tabs, table cells separated by " | ",
// Unicode (\u) and code-page (\'hh) characters; font tables, styles,
// pictures, objects, headers, footers, field instructions and every
// ignorable destination (\*) are left out.
func RTF() Converter { return rtfConverter{} }

type rtfConverter struct{}

func (rtfConverter) Format() Format {
	return Format{
		Kind:       "rtf",
		MediaTypes: []string{"application/rtf", "text/rtf", "application/x-rtf", "text/richtext"},
		Extensions: []string{".rtf"},
		Sniff:      func(in *Input, _ Limits) bool { return strings.HasPrefix(bytesView(in.Data), `{\rtf`) },
	}
}

// rtfSkipped are the destinations whose text is not the document's.
var rtfSkipped = map[string]bool{
	"fonttbl": true, "colortbl": true, "stylesheet": true, "info": true, "pict": true, "object": true,
	"header": true, "headerl": true, "headerr": true, "headerf": true, "footer": true, "footerl": true,
	"footerr": true, "footerf": true, "fldinst": true, "themedata": true, "colorschememapping": true,
	"latentstyles": true, "datastore": true, "xmlnstbl": true, "listtable": true, "listoverridetable": true,
	"rsidtbl": true, "generator": true, "pgdsctbl": true, "revtbl": true, "filetbl": true, "bkmkstart": true,
	"bkmkend": true, "footnote": true, "annotation": true, "atnid": true, "atnauthor": true, "shp": true,
}

// rtfChars are control words that stand for a character.
var rtfChars = map[string]string{
	"par": "\n", "line": "\n", "sect": "\n", "page": "\n", "row": "\n", "tab": "\t", "cell": " | ",
	"emdash": "—", "endash": "–", "bullet": "•", "lquote": "‘", "rquote": "’", "ldblquote": "“",
	"rdblquote": "”", "emspace": " ", "enspace": " ", "qmspace": " ",
}

type rtfGroup struct {
	skip   bool
	uc     int
	hidden bool // \v (hidden text) or \deleted (a tracked deletion)
	note   int  // the index+1 of the note this group's text goes to; 0 for the text
	author bool // the group is an annotation's author
}

// rtfNote is a footnote, endnote or comment being read.
type rtfNote struct {
	text    textBuf
	endnote bool
	comment bool
	group   int // the depth of its group
}

func (rtfConverter) Convert(ctx context.Context, in *Input, lim Limits) (*Result, error) {
	data := in.Data
	if !strings.HasPrefix(bytesView(data), `{\rtf`) {
		return nil, formatErr("", "no {\\rtf header", nil)
	}
	var (
		notes   []*rtfNote
		refs    []noteRef
		author  textBuf
		nFoot   int
		nEnd    int
		nCom    int
		out     strings.Builder
		pending []byte // \'hh bytes, decoded together for multibyte code pages
		stack   []rtfGroup
		cur     = rtfGroup{uc: 1}
		skipN   int // characters still to skip after \u
		first   bool
		dec     encoding.Encoding = charmap.Windows1252
	)
	var flush func()
	author.reset(256)
	write := func(s string) {
		switch {
		case cur.author:
			author.writeString(s)
		case cur.skip || cur.hidden:
		case cur.note > 0:
			notes[cur.note-1].text.writeString(s)
		default:
			out.WriteString(s)
		}
	}
	flush = func() {
		if len(pending) > 0 {
			if b, err := dec.NewDecoder().Bytes(pending); err == nil {
				write(string(b))
			}
			pending = pending[:0]
		}
	}
	emit := func(s string) {
		flush()
		write(s)
	}
	keep := keepBytes(lim)
	for i := 0; i < len(data); i++ {
		if i&0xFFFF == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c := data[i]
		switch c {
		case '{':
			flush()
			if len(stack) >= lim.MaxDepth {
				return nil, limitErr("", "levels of RTF groups", int64(lim.MaxDepth))
			}
			stack = append(stack, cur)
			first = true
			continue
		case '}':
			flush()
			if len(stack) == 0 {
				return nil, formatErr("", "unbalanced braces", nil)
			}
			if n := cur.note; n > 0 && notes[n-1].group == len(stack) && stack[len(stack)-1].note != n {
				// A note's group ends: its reference goes where it began.
				nt := notes[n-1]
				label := ""
				switch {
				case nt.comment:
					nCom++
					label = "c" + strconv.Itoa(nCom)
				case nt.endnote:
					nEnd++
					label = "e" + strconv.Itoa(nEnd)
				default:
					nFoot++
					label = strconv.Itoa(nFoot)
				}
				if text := strings.Join(strings.Fields(string(nt.text.b)), " "); text != "" {
					if nt.comment && author.len() > 0 {
						text = strings.TrimSpace(string(author.b)) + ": " + text
					}
					parent := stack[len(stack)-1]
					if !parent.skip && !parent.hidden && parent.note == 0 {
						out.WriteString("[^" + label + "]")
						refs = append(refs, noteRef{label, text})
					}
				}
			}
			cur, stack = stack[len(stack)-1], stack[:len(stack)-1]
			skipN = 0
			continue
		case '\r', '\n':
			continue
		case '\\':
		default:
			switch {
			case skipN > 0:
				skipN--
			case c >= 0x80:
				// 8-bit text outside \' escapes, as some writers leave it:
				// read it in the code page.
				if !cur.skip {
					pending = append(pending, c)
				}
			default:
				emit(string(rune(c)))
			}
			first = false
			continue
		}
		// A control symbol or word.
		if i+1 >= len(data) {
			break
		}
		i++
		c = data[i]
		wasFirst := first
		first = false
		switch {
		case c == '\'':
			if i+2 < len(data) {
				if b, err := strconv.ParseUint(string(data[i+1:i+3]), 16, 8); err == nil {
					i += 2
					if skipN > 0 {
						skipN--
					} else if !cur.skip {
						pending = append(pending, byte(b))
					}
					continue
				}
			}
		case c == '*':
			// An ignorable destination: skipped unless it is one read
			// here (a note), named by the word that follows.
			cur.skip = true
			first = wasFirst
		case c == '~':
			emit("\u00a0")
		case c == '_':
			emit("-")
		case c == '\\', c == '{', c == '}':
			if skipN > 0 {
				skipN--
			} else {
				emit(string(rune(c)))
			}
		case c == '\r', c == '\n':
			emit("\n")
		case isLetter(c):
			j := i
			for j < len(data) && isLetter(data[j]) && j-i < 32 {
				j++
			}
			word := string(data[i:j])
			k := j
			if k < len(data) && (data[k] == '-' || isDigit(data[k])) {
				k++
				for k < len(data) && isDigit(data[k]) && k-j < 12 {
					k++
				}
			}
			param, hasParam := 0, k > j
			if hasParam {
				param, _ = strconv.Atoi(string(data[j:k]))
			}
			if k < len(data) && data[k] == ' ' {
				k++
			}
			i = k - 1
			switch {
			case word == "u" && hasParam:
				if param < 0 {
					param += 65536
				}
				r := rune(param)
				if !utf8.ValidRune(r) {
					r = utf8.RuneError
				}
				emit(string(r))
				skipN = cur.uc
			case word == "uc" && hasParam:
				cur.uc = max(param, 0)
			case word == "ansicpg" && hasParam:
				if e := codePage(param); e != nil {
					dec = e
				}
			case wasFirst && word == "footnote" && len(notes) < maxFormats:
				notes = append(notes, &rtfNote{group: len(stack)})
				notes[len(notes)-1].text.reset(keep)
				cur.skip, cur.hidden, cur.note = false, false, len(notes)
			case word == "ftnalt" && cur.note > 0:
				notes[cur.note-1].endnote = true
			case wasFirst && word == "annotation" && in.opts.Comments && len(notes) < maxFormats:
				notes = append(notes, &rtfNote{group: len(stack), comment: true})
				notes[len(notes)-1].text.reset(keep)
				cur.skip, cur.hidden, cur.note = false, false, len(notes)
			case wasFirst && word == "atnauthor":
				author.reset(256)
				cur.skip, cur.author = false, true
			case word == "v" || word == "deleted":
				cur.hidden = !hasParam || param != 0
			case word == "plain":
				cur.hidden = false
			case wasFirst && rtfSkipped[word]:
				cur.skip = true
			case rtfChars[word] != "":
				emit(rtfChars[word])
			}
		}
	}
	flush()
	if len(stack) > 0 {
		return nil, formatErr("", "truncated (unclosed groups)", nil)
	}
	s := newSink(lim.MaxChars, "paragraphs")
	paragraphs := 0
	for _, p := range strings.Split(out.String(), "\n") {
		if p = strings.TrimRight(p, " \t"); strings.TrimSpace(p) != "" {
			s.unit(p + "\n")
			paragraphs++
		}
	}
	for _, r := range refs {
		s.unit("[^" + r.label + "]: " + r.text + "\n")
		paragraphs++
	}
	return &Result{Kind: "rtf", As: "plain text", Description: plural(paragraphs, "paragraph"), Text: s.text(), Omitted: s.omit}, nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// codePage returns the encoding of a Windows code page number.
func codePage(n int) encoding.Encoding {
	name := map[int]string{932: "shift_jis", 936: "gbk", 949: "euc-kr", 950: "big5", 10000: "macintosh", 20866: "koi8-r", 65001: "utf-8"}[n]
	if name == "" {
		name = "windows-" + strconv.Itoa(n)
	}
	e, err := htmlindex.Get(name)
	if err != nil {
		return nil
	}
	return e
}
