package convert

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// numFormat is a spreadsheet number format compiled for the numbers it
// shows as numbers (dates and times are written as ISO 8601 instead):
// up to four sections for positive numbers, negative numbers, zero and
// text; digit placeholders 0 # ?, the decimal point, thousands
// separators and scaling commas, percent, scientific notation,
// fractions, quoted and escaped literals, and currency symbols in
// brackets ([$€-407]). Colours, conditions, fill (*) and padding (_)
// are left out: they change how a number looks on screen, not what it
// says.
type numFormat struct {
	sections []numSection
}

// numSection is one section of a format.
type numSection struct {
	general  bool      // "General": the number as stored
	text     bool      // the section shows text only (@, or no placeholder)
	intToks  []fmtTok  // the integer part, literals and placeholders
	decToks  []fmtTok  // after the decimal point
	expToks  []fmtTok  // exponent digits
	hasPoint bool      // a decimal point is shown
	expSign  string    // "+" or "-" after E
	frac     *fracSpec // a fraction
	thousand bool
	percent  int
	scale    int // thousands the number is divided by (trailing commas)
	prefix   string
	suffix   string
}

// fmtTok is a placeholder (0, # or ?) or literal text.
type fmtTok struct {
	ph  byte
	lit string
}

type fracSpec struct {
	whole  bool // an integer part before the fraction
	digits int  // denominator digits, when not fixed
	fixed  int  // a fixed denominator (# ?/8)
}

// builtinFormatCodes are the codes of the built-in number formats that
// are not dates or times; 5–8 are the currency formats of en-US.
var builtinFormatCodes = map[int]string{
	1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	5: `"$"#,##0_);\("$"#,##0\)`, 6: `"$"#,##0_);[Red]\("$"#,##0\)`,
	7: `"$"#,##0.00_);\("$"#,##0.00\)`, 8: `"$"#,##0.00_);[Red]\("$"#,##0.00\)`,
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	37: "#,##0 ;(#,##0)", 38: "#,##0 ;[Red](#,##0)", 39: "#,##0.00;(#,##0.00)", 40: "#,##0.00;[Red](#,##0.00)",
	41: `_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`, 42: `_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)`,
	43: `_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)`, 44: `_("$"* #,##0.00_);_("$"* \(#,##0.00\);_("$"* "-"??_);_(@_)`,
	48: "##0.0E+0", 49: "@",
}

// parseNumFormat compiles a format code; it returns nil for General,
// which writes numbers as they are stored.
func parseNumFormat(code string) *numFormat {
	if code == "" || strings.EqualFold(code, "general") {
		return nil
	}
	f := &numFormat{}
	for _, sec := range splitSections(code) {
		if len(f.sections) == 4 {
			break
		}
		f.sections = append(f.sections, parseSection(sec))
	}
	if len(f.sections) == 0 || f.sections[0].general && len(f.sections) == 1 {
		return nil
	}
	return f
}

// splitSections splits a code at the semicolons outside quotes,
// escapes and brackets.
func splitSections(code string) []string {
	var out []string
	start := 0
	for i := 0; i < len(code); i++ {
		switch code[i] {
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(code)
			}
		case '\\', '_', '*':
			i++
		case '[':
			if j := strings.IndexByte(code[i:], ']'); j >= 0 {
				i += j
			}
		case ';':
			out = append(out, code[start:i])
			start = i + 1
		}
	}
	return append(out, code[start:])
}

func parseSection(code string) numSection {
	var s numSection
	part := &s.intToks
	seen := false  // a placeholder has been read
	inExp := false // after E+
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			*part = append(*part, fmtTok{lit: lit.String()})
			lit.Reset()
		}
	}
	isPh := func(c byte) bool { return c == '0' || c == '#' || c == '?' }
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case c == '"':
			j := strings.IndexByte(code[i+1:], '"')
			if j < 0 {
				j = len(code) - i - 1
			}
			lit.WriteString(code[i+1 : i+1+j])
			i += j + 1
		case c == '\\' && i+1 < len(code):
			_, size := utf8.DecodeRuneInString(code[i+1:])
			lit.WriteString(code[i+1 : i+1+size])
			i += size
		case c == '_' || c == '*':
			// Padding to a character's width, and fill: nothing to say.
			if i+1 < len(code) {
				_, size := utf8.DecodeRuneInString(code[i+1:])
				i += size
			}
		case c == '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				i = len(code)
				break
			}
			inner := code[i+1 : i+j]
			if cur, ok := strings.CutPrefix(inner, "$"); ok {
				if k := strings.IndexByte(cur, '-'); k >= 0 {
					cur = cur[:k]
				}
				lit.WriteString(cur)
			}
			i += j
		case isPh(c):
			flush()
			seen = true
			*part = append(*part, fmtTok{ph: c})
		case c == '.' && !s.hasPoint && !inExp && s.frac == nil:
			flush()
			s.hasPoint = true
			part = &s.decToks
		case c == ',':
			// Between placeholders: thousands separators. After the last
			// placeholder: each comma divides by a thousand.
			next := i + 1
			for next < len(code) && code[next] == ',' {
				next++
			}
			if seen && next < len(code) && isPh(code[next]) && part == &s.intToks {
				s.thousand = true
			} else if seen {
				s.scale += next - i
			} else {
				lit.WriteByte(',')
			}
			i = next - 1
		case c == '%':
			s.percent++
			lit.WriteByte('%')
		case (c == 'E' || c == 'e') && i+1 < len(code) && (code[i+1] == '+' || code[i+1] == '-') && seen:
			flush()
			s.expSign = string(code[i+1])
			i++
			inExp = true
			part = &s.expToks
		case c == '/' && seen && !inExp:
			s.frac = parseFraction(&s, code[i+1:])
			i = len(code)
		case c == '@':
			s.text = true
			lit.WriteByte('@')
		case c == 'G' || c == 'g':
			if len(code)-i >= 7 && strings.EqualFold(code[i:i+7], "general") {
				s.general = true
				i += 6
				break
			}
			lit.WriteByte(c)
		default:
			_, size := utf8.DecodeRuneInString(code[i:])
			lit.WriteString(code[i : i+size])
			i += size - 1
		}
	}
	flush()
	if !seen && !s.general {
		s.text = true
	}
	// Literals before the first placeholder and after the last are the
	// prefix and suffix; the rest stay in place.
	trimEnds(&s)
	return s
}

// parseFraction reads the denominator after '/': placeholders or a
// fixed number, then the suffix. The numerator's placeholders are the
// last group of the integer part, and a group before them (split by a
// literal) is the whole number.
func parseFraction(s *numSection, rest string) *fracSpec {
	fr := &fracSpec{}
	i := 0
	for i < len(rest) && (rest[i] == '0' || rest[i] == '#' || rest[i] == '?') {
		fr.digits++
		i++
	}
	if fr.digits == 0 {
		for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
			fr.fixed = fr.fixed*10 + int(rest[i]-'0')
			i++
		}
	}
	s.suffix = strings.TrimSpace(rest[i:])
	// The numerator is the trailing run of placeholders; a literal (a
	// space) before it separates the whole number.
	toks := s.intToks
	n := len(toks)
	for n > 0 && toks[n-1].ph != 0 {
		n--
	}
	fr.whole = n > 0 && slicesHasPh(toks[:n])
	return fr
}

func slicesHasPh(toks []fmtTok) bool {
	for _, t := range toks {
		if t.ph != 0 {
			return true
		}
	}
	return false
}

// trimEnds moves the literals at the ends of the number into prefix and
// suffix.
func trimEnds(s *numSection) {
	if len(s.intToks) > 0 && s.intToks[0].ph == 0 {
		s.prefix = s.intToks[0].lit
		s.intToks = s.intToks[1:]
	}
	last := &s.intToks
	switch {
	case len(s.expToks) > 0:
		last = &s.expToks
	case s.hasPoint:
		last = &s.decToks
	}
	if n := len(*last); n > 0 && (*last)[n-1].ph == 0 {
		s.suffix = (*last)[n-1].lit + s.suffix
		*last = (*last)[:n-1]
	}
}

// format writes v, whose stored form is raw, as the format shows it. It
// also reports whether the format loses digits of the stored value (a
// rounded percentage, fewer decimals), so that the caller can give the
// stored value too. ok is false when the format cannot write a number.
func (f *numFormat) format(v float64, raw string) (text string, lossy, ok bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "", false, false
	}
	sec := f.sections[0]
	neg := v < 0
	switch {
	case v < 0 && len(f.sections) >= 2:
		sec, v, neg = f.sections[1], -v, false
	case v == 0 && len(f.sections) >= 3:
		sec = f.sections[2]
	}
	if sec.general {
		return sec.prefix + raw + sec.suffix, false, true
	}
	if sec.text {
		if strings.Contains(sec.prefix+sec.suffix, "@") {
			return "", false, false // a text-only format shows numbers as stored
		}
		return sec.prefix + sec.suffix, false, true // a literal, such as "-" for zero
	}
	if neg {
		v = -v
	}
	var num string
	switch {
	case sec.frac != nil:
		num, lossy = sec.fraction(v)
	case len(sec.expToks) > 0:
		num, lossy = sec.scientific(v)
	default:
		num, lossy = sec.fixed(v)
	}
	text = sec.prefix + num + sec.suffix
	if neg && strings.ContainsAny(num, "123456789") {
		text = "-" + text
	}
	return text, lossy, true
}

// fixed writes v with the section's decimals, grouping and literals.
func (s *numSection) fixed(v float64) (string, bool) {
	shift := 2*s.percent - 3*s.scale
	decMax, decMin := 0, 0
	for _, t := range s.decToks {
		if t.ph != 0 {
			decMax++
			if t.ph == '0' {
				decMin = decMax
			}
		}
	}
	d := decimalOf(v, shift)
	lossy := d.decimals() > decMax
	intDigits, decDigits := d.round(decMax)
	decDigits = strings.TrimRight(decDigits, "0")
	for len(decDigits) < decMin {
		decDigits += "0"
	}
	var b strings.Builder
	b.WriteString(fillInt(s.intToks, intDigits, s.thousand))
	if s.hasPoint {
		if decDigits != "" || decMin > 0 || len(s.decToks) == 0 || hasLiteral(s.decToks) {
			b.WriteByte('.')
		}
		b.WriteString(fillDec(s.decToks, decDigits))
	}
	return b.String(), lossy
}

// scientific writes v as mantissa and exponent.
func (s *numSection) scientific(v float64) (string, bool) {
	intPh, decMax := 0, 0
	for _, t := range s.intToks {
		if t.ph != 0 {
			intPh++
		}
	}
	for _, t := range s.decToks {
		if t.ph != 0 {
			decMax++
		}
	}
	expMin := 0
	for _, t := range s.expToks {
		if t.ph == '0' {
			expMin++
		}
	}
	exp := 0
	if v != 0 {
		exp = int(math.Floor(math.Log10(v)))
		// Excel keeps the exponent a multiple of the integer
		// placeholders (##0.0E+0 is engineering notation).
		if intPh > 1 {
			exp = int(math.Floor(float64(exp)/float64(intPh))) * intPh
		}
	}
	d := decimalOf(v, -exp)
	lossy := d.decimals() > decMax
	intDigits, decDigits := d.round(decMax)
	if len(intDigits) > max(intPh, 1) && v != 0 {
		// Rounding carried into a new digit: 9.99 → 10.0 → 1.00E+01.
		exp += len(intDigits) - max(intPh, 1)
		d = decimalOf(v, -exp)
		intDigits, decDigits = d.round(decMax)
	}
	var b strings.Builder
	b.WriteString(intDigits)
	if s.hasPoint && decMax > 0 {
		b.WriteByte('.')
		b.WriteString(decDigits)
	}
	b.WriteByte('E')
	switch {
	case exp < 0:
		b.WriteByte('-')
	case s.expSign == "+":
		b.WriteByte('+')
	}
	e := strconv.Itoa(abs(exp))
	for len(e) < expMin {
		e = "0" + e
	}
	b.WriteString(e)
	return b.String(), lossy
}

// fraction writes v as a whole number and a fraction, the denominator
// fixed or the best one of its digits.
func (s *numSection) fraction(v float64) (string, bool) {
	whole := 0.0
	frac := v
	if s.frac.whole {
		whole = math.Floor(v)
		frac = v - whole
	}
	num, den := 0, 1
	if s.frac.fixed > 0 {
		den = s.frac.fixed
		num = int(math.Round(frac * float64(den)))
	} else {
		maxDen := int(math.Pow10(min(s.frac.digits, 4))) - 1
		best := math.Inf(1)
		for q := 1; q <= maxDen; q++ {
			p := math.Round(frac * float64(q))
			if e := math.Abs(frac - p/float64(q)); e < best-1e-12 {
				best, num, den = e, int(p), q
			}
		}
	}
	if s.frac.whole && num == den {
		whole, num = whole+1, 0
	}
	lossy := math.Abs(whole+float64(num)/float64(den)-v) > 1e-9*math.Max(1, v)
	var b strings.Builder
	if s.frac.whole && (whole != 0 || num == 0) {
		b.WriteString(strconv.FormatFloat(whole, 'f', 0, 64))
	}
	if num != 0 || !s.frac.whole {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(num) + "/" + strconv.Itoa(den))
	}
	return b.String(), lossy
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func hasLiteral(toks []fmtTok) bool {
	for _, t := range toks {
		if t.ph == 0 {
			return true
		}
	}
	return false
}

// fillInt writes the integer digits into the placeholders from the
// right: a digit beyond them goes with the leftmost, 0 pads with zeros,
// # and ? show nothing for a missing digit. Grouping applies when the
// placeholders are not split by literals.
func fillInt(toks []fmtTok, digits string, group bool) string {
	digits = strings.TrimLeft(digits, "0")
	if group && !hasLiteral(toks) {
		zeros := 0
		for _, t := range toks {
			if t.ph == '0' {
				zeros++
			}
		}
		for len(digits) < zeros {
			digits = "0" + digits
		}
		return groupThousands(digits)
	}
	out := make([]string, len(toks))
	i := len(digits)
	first := -1
	for k := len(toks) - 1; k >= 0; k-- {
		t := toks[k]
		if t.ph == 0 {
			out[k] = t.lit
			continue
		}
		first = k
		switch {
		case i > 0:
			out[k] = digits[i-1 : i]
			i--
		case t.ph == '0':
			out[k] = "0"
		}
	}
	if i > 0 && first >= 0 {
		out[first] = digits[:i] + out[first]
	}
	return strings.Join(out, "")
}

// fillDec writes the decimal digits into the placeholders from the left.
func fillDec(toks []fmtTok, digits string) string {
	var b strings.Builder
	i := 0
	for _, t := range toks {
		if t.ph == 0 {
			b.WriteString(t.lit)
			continue
		}
		if i < len(digits) {
			b.WriteByte(digits[i])
			i++
		}
	}
	return b.String()
}

func groupThousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// decimal is a non-negative number as decimal digits: the value is
// 0.digits × 10^exp. Formats round the stored value in decimal, as
// spreadsheets do, not its binary approximation: 0.0345 at one decimal
// of a percent is 3.5%, though 0.0345 × 100 is 3.4499… in floating
// point.
type decimal struct {
	digits string
	exp    int
}

// decimalOf returns v × 10^shift from v's shortest decimal form.
func decimalOf(v float64, shift int) decimal {
	s := strconv.FormatFloat(math.Abs(v), 'e', -1, 64) // d.ddde±x
	mant, e, _ := strings.Cut(s, "e")
	x, _ := strconv.Atoi(e)
	digits := strings.Replace(mant, ".", "", 1)
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return decimal{}
	}
	return decimal{digits: digits, exp: x + 1 + shift}
}

// decimals is the number of digits after the point.
func (d decimal) decimals() int { return max(len(d.digits)-d.exp, 0) }

// round rounds half away from zero to n decimals and returns the integer
// digits ("0" for none) and exactly n decimal digits.
func (d decimal) round(n int) (intPart, decPart string) {
	if d.digits == "" {
		return "0", strings.Repeat("0", n)
	}
	// Digits of the number × 10^n, as an integer, rounded.
	keep := d.exp + n
	var digits []byte
	switch {
	case keep < 0:
		digits = nil
	case keep >= len(d.digits):
		digits = []byte(d.digits + strings.Repeat("0", keep-len(d.digits)))
	default:
		digits = []byte(d.digits[:keep])
		if d.digits[keep] >= '5' {
			i := len(digits) - 1
			for ; i >= 0 && digits[i] == '9'; i-- {
				digits[i] = '0'
			}
			if i < 0 {
				digits = append([]byte{'1'}, digits...)
			} else {
				digits[i]++
			}
		}
	}
	s := string(digits)
	for len(s) < n+1 {
		s = "0" + s
	}
	intPart, decPart = s[:len(s)-n], s[len(s)-n:]
	if t := strings.TrimLeft(intPart, "0"); t != "" {
		intPart = t
	} else {
		intPart = "0"
	}
	return intPart, decPart
}

// sameDigits reports whether shown, a number as a program displayed it
// in any locale ("34.7%", "1.204,50 €", "(1,500.00)"), holds the
// significant digits of raw, the stored value: if not, the display
// rounded it.
func sameDigits(shown string, raw float64) bool {
	if i := strings.IndexAny(shown, "Ee"); i > 0 && i+1 < len(shown) && (shown[i+1] == '+' || shown[i+1] == '-') {
		shown = shown[:i]
	}
	var b []byte
	for i := 0; i < len(shown); i++ {
		if c := shown[i]; '0' <= c && c <= '9' {
			b = append(b, c)
		}
	}
	want := decimalOf(raw, 0).digits
	got := strings.TrimRight(strings.TrimLeft(string(b), "0"), "0")
	return got == want
}
