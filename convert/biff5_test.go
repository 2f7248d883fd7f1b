package convert_test

import (
	"encoding/binary"
	"math"
	"testing"
)

// biffRec is a BIFF record: its type, its length, its body.
func biffRec(typ uint16, body []byte) []byte {
	b := make([]byte, 4, 4+len(body))
	binary.LittleEndian.PutUint16(b, typ)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(body)))
	return append(b, body...)
}

// biffBOF is the BOF record that starts a substream of type dt, in the
// BIFF version given (0x0500 for Excel 5/95, 0x0600 for 97), of size
// bytes (8 in BIFF5, 16 in BIFF8).
func biffBOF(version, dt uint16, size int) []byte {
	b := make([]byte, size)
	binary.LittleEndian.PutUint16(b, version)
	binary.LittleEndian.PutUint16(b[2:], dt)
	return biffRec(0x0809, b)
}

// excel95Workbook is a workbook in the BIFF5 format of Excel 5.0 and 95,
// which keel's own converters do not read: the globals (a BOF and the
// sheet's BOUNDSHEET), then the sheet's cells as 8-bit LABEL and NUMBER
// records, in a Compound File's "Book" stream as Excel 95 stores it.
func excel95Workbook(t testing.TB) []byte {
	t.Helper()
	le := binary.LittleEndian
	rec := biffRec
	bof := func(dt uint16) []byte { return biffBOF(0x0500, dt, 8) }
	label := func(row, col uint16, s string) []byte {
		b := make([]byte, 8, 8+len(s))
		le.PutUint16(b, row)
		le.PutUint16(b[2:], col)
		le.PutUint16(b[6:], uint16(len(s)))
		return rec(0x0204, append(b, s...))
	}
	number := func(row, col uint16, v float64) []byte {
		b := make([]byte, 14)
		le.PutUint16(b, row)
		le.PutUint16(b[2:], col)
		le.PutUint64(b[6:], math.Float64bits(v))
		return rec(0x0203, b)
	}
	name := "Ledger"
	sheet := bof(0x0010)
	sheet = append(sheet, label(0, 0, "Item QZ95ITEM")...)
	sheet = append(sheet, label(0, 1, "Amount")...)
	sheet = append(sheet, label(1, 0, "Rent QZ95RENT")...)
	sheet = append(sheet, number(1, 1, 1250)...)
	sheet = append(sheet, rec(0x000A, nil)...)
	boundSheet := func(offset uint32) []byte {
		b := make([]byte, 7, 7+len(name))
		le.PutUint32(b, offset)
		b[6] = byte(len(name))
		return rec(0x0085, append(b, name...))
	}
	globals := append(bof(0x0005), boundSheet(0)...)
	globals = append(globals, rec(0x000A, nil)...)
	book := append(append(bof(0x0005), boundSheet(uint32(len(globals)))...), rec(0x000A, nil)...)
	book = append(book, sheet...)
	data, _ := writeCFB(t, storage("Root Entry", stream("Book", book)))
	return data
}
