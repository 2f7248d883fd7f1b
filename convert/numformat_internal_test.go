package convert

import "testing"

func TestNumFormat(t *testing.T) {
	tests := []struct {
		code  string
		v     float64
		want  string
		lossy bool
	}{
		{"0.0%", 0.3471, "34.7%", true},
		{"0.00%", 0.3471, "34.71%", false},
		{"0%", 0.25, "25%", false},
		{"0.0%", 0.0345, "3.5%", true}, // rounded in decimal, half away from zero
		{`"$"#,##0.00`, 1500, "$1,500.00", false},
		{`"$"#,##0.00`, -1500, "-$1,500.00", false},
		{`"$"#,##0.00_);\("$"#,##0.00\)`, -1500, "($1,500.00)", false},
		{`[$€-407]\ #,##0.00`, 1204.5, "€ 1,204.50", false},
		{`#,##0.00\ [$€-407]`, 1204.5, "1,204.50 €", false},
		{"#,##0", 1234567.89, "1,234,568", true},
		{"#,##0", 0, "0", false},
		{"#,##0", -42, "-42", false},
		{"0.00", 3.14159, "3.14", true},
		{"0.00", 2, "2.00", false},
		{"0.000", 0.30000000000000004, "0.300", true},
		{"#.##", 0.5, ".5", false},
		{"0.0#", 1.5, "1.5", false},
		{"0.0#", 1.555, "1.56", true},
		{"00000", 501, "00501", false},
		{"000-00-0000", 123456789, "123-45-6789", false},
		{"#,##0,", 1234567, "1,235", true},
		{`#,##0.0,,"M"`, 1234567, "1.2M", true},
		{"0.00E+00", 12345, "1.23E+04", true},
		{"0.00E+00", 0.000123, "1.23E-04", false},
		{"##0.0E+0", 12345, "12.3E+3", true},
		{"# ?/?", 1.25, "1 1/4", false},
		{"# ??/??", 3.14159, "3 14/99", true},
		{"# ?/8", 0.625, "5/8", false},
		{`_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`, 0, "-", false},
		{`_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`, -1234, "(1,234)", false},
		{`0.00;[Red]-0.00`, -2.5, "-2.50", false},
		{`0 "units"`, 12, "12 units", false},
		{"General", 1.5, "", false}, // General: the value as stored (no format)
		{"@", 7, "", false},         // text: the value as stored
	}
	for _, tt := range tests {
		f := parseNumFormat(tt.code)
		got, lossy := "", false
		if f != nil {
			var ok bool
			if got, lossy, ok = f.format(tt.v, "raw"); !ok {
				got = ""
			}
		}
		if got != tt.want || lossy != tt.lossy {
			t.Errorf("format(%q, %v) = %q, lossy %v; want %q, lossy %v", tt.code, tt.v, got, lossy, tt.want, tt.lossy)
		}
	}
}

func TestSameDigits(t *testing.T) {
	tests := []struct {
		shown string
		raw   float64
		want  bool
	}{
		{"34.7%", 0.3471, false},
		{"34.71%", 0.3471, true},
		{"$1,500.00", 1500, true},
		{"1.204,50 €", 1204.5, true},
		{"(1,500.00)", -1500, true},
		{"1.20E+03", 1204.5, false},
		{"0.35", 0.347, false},
		{"1,000", 999.6, false},
		{"0", 0, true},
	}
	for _, tt := range tests {
		if got := sameDigits(tt.shown, tt.raw); got != tt.want {
			t.Errorf("sameDigits(%q, %v) = %v; want %v", tt.shown, tt.raw, got, tt.want)
		}
	}
}
