package convert

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// numKind says how a number format shows a number: as itself, or as a
// date, a time of day, both, or an elapsed time.
type numKind uint8

const (
	numPlain numKind = iota
	numDate
	numTime
	numDateTime
	numDuration
)

// builtinNumKind classifies the number formats that Excel numbers
// without writing their codes: 14–22 and 45–47 everywhere, 27–36 and
// 50–58 in East Asian locales.
func builtinNumKind(id int) numKind {
	switch {
	case id >= 14 && id <= 17, id >= 27 && id <= 31, id >= 34 && id <= 36, id >= 50 && id <= 58:
		return numDate
	case id >= 18 && id <= 21, id == 45, id == 47, id == 32, id == 33:
		return numTime
	case id == 22:
		return numDateTime
	case id == 46:
		return numDuration
	}
	return numPlain
}

// formatNumKind classifies a format code by its first section: the
// letters y, d, m (a month unless beside h or s), h and s outside quotes,
// escapes and brackets make a date or time; [h], [m] or [s] make an
// elapsed time.
func formatNumKind(code string) numKind {
	var b strings.Builder
	duration := false
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch c {
		case ';':
			i = len(code)
		case '"':
			if j := strings.IndexByte(code[i+1:], '"'); j >= 0 {
				i += j + 1
			} else {
				i = len(code)
			}
		case '\\', '_', '*':
			i++
		case '[':
			j := strings.IndexByte(code[i:], ']')
			if j < 0 {
				i = len(code)
				break
			}
			switch strings.Trim(strings.ToLower(code[i+1:i+j]), "hms") {
			case "":
				if j > 1 {
					duration = true
				}
			}
			i += j
		default:
			b.WriteByte(c | 0x20)
		}
	}
	if duration {
		return numDuration
	}
	s := strings.ReplaceAll(b.String(), "general", "")
	s = strings.ReplaceAll(strings.ReplaceAll(s, "am/pm", ""), "a/p", "")
	hasTime := strings.ContainsAny(s, "hs")
	hasDate := strings.ContainsAny(s, "yd") || strings.ContainsRune(s, 'm') && !hasTime
	switch {
	case hasDate && hasTime:
		return numDateTime
	case hasDate:
		return numDate
	case hasTime:
		return numTime
	}
	return numPlain
}

// maxSerial is 9999-12-31, the last day Excel shows.
const maxSerial = 2958465

var (
	epoch1900 = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	epoch1904 = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
)

// serialTime writes a spreadsheet serial number as ISO 8601: a date
// "2024-03-01", a time "13:45:00", both "2024-03-01T13:45:00", or an
// elapsed time "36:30:00". It reports false for a number no date can
// have. In the 1900 system serial 60 is 29 February 1900, a day that did
// not exist but that Excel counts (as Lotus 1-2-3 did).
func serialTime(v float64, date1904 bool, k numKind) (string, bool) {
	if math.IsNaN(v) || v < 0 || v > maxSerial+1 {
		return "", false
	}
	if k == numDuration {
		secs := int64(math.Round(v * 86400))
		return fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60), true
	}
	days := math.Floor(v)
	secs := int64(math.Round((v - days) * 86400))
	if secs >= 86400 {
		days++
		secs -= 86400
	}
	clock := fmt.Sprintf("%02d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	if k == numTime {
		return clock, true
	}
	var date string
	switch {
	case date1904:
		date = epoch1904.AddDate(0, 0, int(days)).Format(time.DateOnly)
	case days == 60:
		date = "1900-02-29"
	case days < 60:
		date = epoch1900.AddDate(0, 0, int(days)+1).Format(time.DateOnly)
	default:
		date = epoch1900.AddDate(0, 0, int(days)).Format(time.DateOnly)
	}
	if k == numDate {
		return date, true
	}
	return date + "T" + clock, true
}
