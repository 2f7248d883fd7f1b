package convert_test

import (
	"context"
	"testing"

	"github.com/keel-go/keel/convert"
)

// WordPad writes a short header, \ansicpg1252, \uN with a ? fallback,
// and code-page characters as \'hh.
const wordpadRTF = `{\rtf1\ansi\ansicpg1252\deff0\nouicompat\deflang1033{\fonttbl{\f0\fnil\fcharset0 Calibri;}}
{\*\generator Riched20 10.0.19041}\viewkind4\uc1 
\pard\sa200\sl276\slmult1\b\f0\fs22\lang9 Quarterly report\b0\par
Sales rose 12% in Z\'fcrich and \u26085?\u26412?.\par
Caf\'e9 \emdash  open\tab late\line until ten\par
}
`

// Word writes style sheets, an info group, a header, pictures with
// their hex data, fields with their instruction and result, a table,
// and Greek text in \'hh of code page 1253 under \uc1.
const wordRTF = `{\rtf1\adeflang1025\ansi\ansicpg1253\uc1\adeff0\deff0{\fonttbl{\f0\fbidi \froman\fcharset161\fprq2 Times New Roman;}}
{\colortbl;\red0\green0\blue0;}{\stylesheet{\ql \li0\ri0 Normal;}{\s1\ql Heading 1;}}
{\info{\title Report}{\author Ann}{\creatim\yr2024\mo3\dy1}}
{\header \pard\plain Confidential\par}
\pard\plain \s1\ql\outlinelevel0 {\b Report}\par
\pard\plain \'c3\'e5\'e9\'e1 \'f3\'ef\'f5 and {\field{\*\fldinst {HYPERLINK "https://example.com"}}{\fldrslt {the site}}}.\par
{\*\shppict{\pict\pngblip\picw10\pich10 89504e470d0a1a0a0000000d49484452}}{\nonshppict{\pict\wmetafile8 0100090000}}
\trowd \cellx3000\cellx6000 \pard\intbl Region\cell Q1\cell \row
\trowd \cellx3000\cellx6000 \pard\intbl North\cell 1,204\cell \row
\pard\plain End\{x\}\par
}
`

func TestRTF(t *testing.T) {
	tests := []struct {
		name, data, want, desc string
	}{
		{"wordpad", wordpadRTF, "Quarterly report\nSales rose 12% in Zürich and 日本.\nCafé — open\tlate\nuntil ten\n", "4 paragraphs"},
		{"word", wordRTF, "Report\nΓεια σου and the site.\nRegion | Q1 |\nNorth | 1,204 |\nEnd{x}\n", "5 paragraphs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.name + ".rtf", MediaType: "application/rtf", Data: []byte(tt.data)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != "rtf" || res.Text != tt.want || res.Description != tt.desc {
				t.Errorf("Convert(%s.rtf) = kind %q, %q, %q; want %q, %q", tt.name, res.Kind, res.Description, res.Text, tt.desc, tt.want)
			}
		})
	}
}
