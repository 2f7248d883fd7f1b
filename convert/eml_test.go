package convert_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// crlf turns a message written with LF into the CRLF line ends mail
// uses on the wire and on disk.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// thunderbirdMail is a message as Thunderbird writes one: encoded-word
// headers in UTF-8, multipart/mixed around multipart/alternative, the
// plain part quoted-printable and flowed, the HTML part 7bit, and an
// xlsx attached in base64.
func thunderbirdMail(t testing.TB) string {
	xlsx := base64.StdEncoding.EncodeToString(leadsWorkbook(t))
	var wrapped strings.Builder
	for len(xlsx) > 72 {
		wrapped.WriteString(xlsx[:72] + "\n")
		xlsx = xlsx[72:]
	}
	wrapped.WriteString(xlsx + "\n")
	return crlf(`Return-Path: <ann@example.com>
Received: from mail.example.com (mail.example.com [192.0.2.1])
	by mx.example.org with ESMTPS id 4Tn; Fri, 01 Mar 2024 10:00:05 +0100
Message-ID: <8f3e1c2a-1234@example.com>
Date: Fri, 1 Mar 2024 10:00:00 +0100
MIME-Version: 1.0
User-Agent: Mozilla Thunderbird
From: =?UTF-8?Q?Ann_M=C3=BCller?= <ann@example.com>
To: Bob <bob@example.com>, =?UTF-8?B?5bGx55Sw?= <yamada@example.jp>
Subject: =?UTF-8?Q?Zahlen_f=C3=BCr_M=C3=A4rz?=
Content-Type: multipart/mixed; boundary="------------0N1c2tH9"

This is a multi-part message in MIME format.
--------------0N1c2tH9
Content-Type: multipart/alternative;
 boundary="------------aLt4Rn8"

--------------aLt4Rn8
Content-Type: text/plain; charset=UTF-8; format=flowed
Content-Transfer-Encoding: quoted-printable

Hallo Bob,

die Zahlen f=C3=BCr M=C3=A4rz sind da: 1.204 Leads, siehe Anhang. Beste =
Gr=C3=BC=C3=9Fe

Ann

--------------aLt4Rn8
Content-Type: text/html; charset=UTF-8
Content-Transfer-Encoding: 7bit

<html><body><p>Hallo Bob,</p><p>die Zahlen</p></body></html>

--------------aLt4Rn8--
--------------0N1c2tH9
Content-Type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;
 name="leads.xlsx"
Content-Disposition: attachment; filename="leads.xlsx"
Content-Transfer-Encoding: base64

` + wrapped.String() + `
--------------0N1c2tH9--
`)
}

// outlookMail is a message as Outlook writes one: an HTML-only body in
// windows-1252, quoted-printable, and an attachment named with RFC 2231.
const outlookMail = `From: "Smith, Jo" <jo@example.com>
To: <team@example.com>
Subject: Caf=?windows-1252?Q?=E9?= menu
Date: Mon, 4 Mar 2024 09:15:00 +0000
Message-ID: <AM0PR01@outlook.com>
Content-Type: multipart/mixed; boundary="_004_AM0PR01_"
MIME-Version: 1.0

--_004_AM0PR01_
Content-Type: text/html; charset="windows-1252"
Content-Transfer-Encoding: quoted-printable

<html><head><style>p {color:red}</style></head><body><p>Menu for the caf=E9:</p><ul><li>Cr=E8me br=FBl=E9e &amp; tea</li><li>Soup</li></ul></body></html>

--_004_AM0PR01_
Content-Type: application/pdf; name="=?utf-8?B?5pel5pys6KqeLnBkZg==?="
Content-Disposition: attachment; filename*=utf-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.pdf; size=4
Content-Transfer-Encoding: base64

JVBERg==

--_004_AM0PR01_--
`

func TestEML(t *testing.T) {
	tests := []struct {
		name, data, want, desc string
	}{
		{
			name: "thunderbird", data: thunderbirdMail(t),
			want: `From: Ann Müller <ann@example.com>
To: Bob <bob@example.com>, 山田 <yamada@example.jp>
Date: Fri, 1 Mar 2024 10:00:00 +0100
Subject: Zahlen für März

Hallo Bob,

die Zahlen für März sind da: 1.204 Leads, siehe Anhang. Beste Grüße

Ann

Attachments:
- leads.xlsx (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, ` + commas(len(leadsWorkbook(t))) + ` bytes)
`,
			desc: `e-mail "Zahlen für März" from Ann Müller <ann@example.com>, 1 attachment`,
		},
		{
			name: "outlook", data: crlf(outlookMail),
			want: `From: "Smith, Jo" <jo@example.com>
To: <team@example.com>
Date: Mon, 4 Mar 2024 09:15:00 +0000
Subject: Café menu

Menu for the café:

- Crème brûlée & tea
- Soup

Attachments:
- 日本語.pdf (application/pdf, 4 bytes)
`,
			desc: `e-mail "Café menu" from "Smith, Jo" <jo@example.com>, 1 attachment`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.name + ".eml", MediaType: "message/rfc822", Data: []byte(tt.data)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != "eml" || res.Text != tt.want || res.Description != tt.desc {
				t.Errorf("Convert(%s.eml) = kind %q, %q, text\n%s\nwant %q, text\n%s", tt.name, res.Kind, res.Description, res.Text, tt.desc, tt.want)
			}
		})
	}
}

// commas writes a count with commas between groups of three digits.
func commas(n int) string {
	digits := []byte{}
	for n > 0 || len(digits) == 0 {
		digits = append([]byte{byte('0' + n%10)}, digits...)
		n /= 10
	}
	var out []byte
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, d)
	}
	return string(out)
}
