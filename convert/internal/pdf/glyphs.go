package pdf

import (
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/unicode/norm"
)

// glyphNames maps the glyph names fonts use in their /Differences to
// text: the Adobe Glyph List's names of the characters of the Latin
// encodings and of common typographic marks. Names of accented letters
// ("eacute") are composed from the letter and the accent; "uniXXXX" and
// "uXXXX" name code points.
var glyphNames = map[string]string{
	"space": " ", "exclam": "!", "quotedbl": "\"", "numbersign": "#", "dollar": "$", "percent": "%",
	"ampersand": "&", "quotesingle": "'", "parenleft": "(", "parenright": ")", "asterisk": "*", "plus": "+",
	"comma": ",", "hyphen": "-", "period": ".", "slash": "/", "zero": "0", "one": "1", "two": "2", "three": "3",
	"four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "colon": ":", "semicolon": ";",
	"less": "<", "equal": "=", "greater": ">", "question": "?", "at": "@", "bracketleft": "[", "backslash": "\\",
	"bracketright": "]", "asciicircum": "^", "underscore": "_", "grave": "`", "braceleft": "{", "bar": "|",
	"braceright": "}", "asciitilde": "~", "quoteleft": "\u2018", "quoteright": "\u2019", "quotedblleft": "\u201c",
	"quotedblright": "\u201d", "quotesinglbase": "\u201a", "quotedblbase": "\u201e", "guillemotleft": "\u00ab",
	"guillemotright": "\u00bb", "guilsinglleft": "\u2039", "guilsinglright": "\u203a", "endash": "\u2013",
	"emdash": "\u2014", "bullet": "\u2022", "ellipsis": "\u2026", "dagger": "\u2020", "daggerdbl": "\u2021",
	"trademark": "\u2122", "copyright": "\u00a9", "registered": "\u00ae", "degree": "\u00b0", "section": "\u00a7",
	"paragraph": "\u00b6", "Euro": "\u20ac", "minus": "\u2212", "multiply": "\u00d7", "divide": "\u00f7",
	"plusminus": "\u00b1", "fi": "fi", "fl": "fl", "ff": "ff", "ffi": "ffi", "ffl": "ffl", "florin": "\u0192",
	"perthousand": "\u2030", "exclamdown": "\u00a1", "questiondown": "\u00bf", "cent": "\u00a2", "sterling": "\u00a3",
	"yen": "\u00a5", "currency": "\u00a4", "brokenbar": "\u00a6", "ordfeminine": "\u00aa", "ordmasculine": "\u00ba",
	"logicalnot": "\u00ac", "periodcentered": "\u00b7", "middot": "\u00b7", "onequarter": "\u00bc", "onehalf": "\u00bd",
	"threequarters": "\u00be", "onesuperior": "\u00b9", "twosuperior": "\u00b2", "threesuperior": "\u00b3",
	"mu": "\u00b5", "AE": "\u00c6", "ae": "\u00e6", "OE": "\u0152", "oe": "\u0153", "Oslash": "\u00d8",
	"oslash": "\u00f8", "germandbls": "\u00df", "Eth": "\u00d0", "eth": "\u00f0", "Thorn": "\u00de",
	"thorn": "\u00fe", "dotlessi": "\u0131", "Lslash": "\u0141", "lslash": "\u0142", "fraction": "\u2044",
	"nbspace": "\u00a0", "sfthyphen": "\u00ad", "softhyphen": "\u00ad", "circumflex": "\u02c6", "tilde": "\u02dc",
	"macron": "\u00af", "breve": "\u02d8", "dotaccent": "\u02d9", "ring": "\u02da", "cedilla": "\u00b8",
	"hungarumlaut": "\u02dd", "ogonek": "\u02db", "caron": "\u02c7", "dieresis": "\u00a8", "acute": "\u00b4",
	"arrowleft": "\u2190", "arrowright": "\u2192", "arrowup": "\u2191", "arrowdown": "\u2193", "lozenge": "\u25ca",
	"infinity": "\u221e", "notequal": "\u2260", "lessequal": "\u2264", "greaterequal": "\u2265", "summation": "\u2211",
	"product": "\u220f", "radical": "\u221a", "integral": "\u222b", "partialdiff": "\u2202", "approxequal": "\u2248",
	"Delta": "\u2206", "Omega": "\u2126", "pi": "\u03c0", "alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3",
	"delta": "\u03b4", "epsilon": "\u03b5", "lambda": "\u03bb", "sigma": "\u03c3", "tau": "\u03c4", "phi": "\u03c6",
	"omega": "\u03c9", "theta": "\u03b8", "quoteleftreversed": "\u201b", "figuredash": "\u2012", "checkmark": "\u2713",
}

// accents are the combining marks of the accent names of composed
// glyph names.
var accents = map[string]rune{
	"acute": '\u0301', "grave": '\u0300', "circumflex": '\u0302', "dieresis": '\u0308', "tilde": '\u0303',
	"ring": '\u030a', "cedilla": '\u0327', "caron": '\u030c', "breve": '\u0306', "macron": '\u0304',
	"ogonek": '\u0328', "dotaccent": '\u0307', "hungarumlaut": '\u030b', "commaaccent": '\u0326',
}

// glyphText returns the text a glyph name stands for, or "" when the
// name is not known.
func glyphText(name string) string {
	if name == "" {
		return "" // "/", or a part of "a_" or "_b"
	}
	if s, ok := glyphNames[name]; ok {
		return s
	}
	if len(name) == 1 && (name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		return name
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		return glyphText(name[:i]) // "a.sc", "one.oldstyle"
	}
	if strings.Contains(name, "_") {
		var b strings.Builder
		for _, part := range strings.Split(name, "_") {
			b.WriteString(glyphText(part))
		}
		return b.String()
	}
	if strings.HasPrefix(name, "uni") && len(name) >= 7 && (len(name)-3)%4 == 0 {
		var b strings.Builder
		for i := 3; i+4 <= len(name); i += 4 {
			v, err := strconv.ParseUint(name[i:i+4], 16, 32)
			if err != nil {
				return ""
			}
			b.WriteRune(rune(v))
		}
		return b.String()
	}
	if name[0] == 'u' && len(name) >= 5 && len(name) <= 7 {
		if v, err := strconv.ParseUint(name[1:], 16, 32); err == nil && v <= 0x10FFFF {
			return string(rune(v))
		}
	}
	if len(name) > 1 {
		for acc, mark := range accents {
			if base, ok := strings.CutSuffix(name, acc); ok && len(base) == 1 {
				return norm.NFC.String(base + string(mark))
			}
		}
	}
	return ""
}

// baseEncoding returns the text of the 256 codes of a named encoding;
// StandardEncoding (the default of Type 1 fonts) for an unknown name.
func baseEncoding(name Name) *[256]string {
	switch name {
	case "WinAnsiEncoding":
		return &winAnsi
	case "MacRomanEncoding":
		return &macRoman
	}
	return &standard
}

var winAnsi, macRoman, standard = func() (w, m, s [256]string) {
	for i := 0; i < 256; i++ {
		w[i] = string(charmap.Windows1252.DecodeByte(byte(i)))
		m[i] = string(charmap.Macintosh.DecodeByte(byte(i)))
		if i >= 0x20 && i < 0x7f {
			s[i] = string(rune(i))
		}
	}
	for i := 0; i < 0x20; i++ {
		w[i], m[i] = "", ""
	}
	// WinAnsi gives a bullet to codes Windows-1252 leaves undefined.
	for _, c := range []byte{0x81, 0x8d, 0x8f, 0x90, 0x9d} {
		w[c] = "\u2022"
	}
	w[0x7f] = "\u2022"
	w[0xa0] = " "
	s['\''], s['`'] = "\u2019", "\u2018"
	for code, name := range map[byte]string{
		0xa1: "exclamdown", 0xa2: "cent", 0xa3: "sterling", 0xa4: "fraction", 0xa5: "yen", 0xa6: "florin",
		0xa7: "section", 0xa8: "currency", 0xa9: "quotesingle", 0xaa: "quotedblleft", 0xab: "guillemotleft",
		0xac: "guilsinglleft", 0xad: "guilsinglright", 0xae: "fi", 0xaf: "fl", 0xb1: "endash", 0xb2: "dagger",
		0xb3: "daggerdbl", 0xb4: "periodcentered", 0xb6: "paragraph", 0xb7: "bullet", 0xb8: "quotesinglbase",
		0xb9: "quotedblbase", 0xba: "quotedblright", 0xbb: "guillemotright", 0xbc: "ellipsis", 0xbd: "perthousand",
		0xbf: "questiondown", 0xc1: "grave", 0xc2: "acute", 0xc3: "circumflex", 0xc4: "tilde", 0xc5: "macron",
		0xc6: "breve", 0xc7: "dotaccent", 0xc8: "dieresis", 0xca: "ring", 0xcb: "cedilla", 0xcd: "hungarumlaut",
		0xce: "ogonek", 0xcf: "caron", 0xd0: "emdash", 0xe1: "AE", 0xe3: "ordfeminine", 0xe8: "Lslash",
		0xe9: "Oslash", 0xea: "OE", 0xeb: "ordmasculine", 0xf1: "ae", 0xf5: "dotlessi", 0xf8: "lslash",
		0xf9: "oslash", 0xfa: "oe", 0xfb: "germandbls",
	} {
		s[code] = glyphNames[name]
	}
	return
}()
