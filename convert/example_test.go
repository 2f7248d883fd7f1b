package convert_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/keel-go/keel/convert"
)

func Example() {
	// A workbook as a user would send it.
	f := excelize.NewFile()
	f.SetSheetName("Sheet1", "Leads")
	f.SetSheetRow("Leads", "A1", &[]any{"Name", "City", "Signed"})
	date, _ := f.NewStyle(&excelize.Style{NumFmt: 14})
	f.SetSheetRow("Leads", "A2", &[]any{"山田 太郎", "東京", 45352})
	f.SetCellStyle("Leads", "C2", "C2", date)
	var buf bytes.Buffer
	f.WriteTo(&buf)

	res, err := convert.Default().Convert(context.Background(), convert.Input{Name: "leads.xlsx", Data: buf.Bytes()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("[Text of leads.xlsx — %s, as %s]\n", res.Description, res.As)
	fmt.Print(res.Text)
	// Output:
	// [Text of leads.xlsx — sheet "Leads", 2 rows × 3 columns, as CSV]
	// # Sheet "Leads": 2 rows × 3 columns, cells A1:C2
	// Name,City,Signed
	// 山田 太郎,東京,2024-03-01
}

func ExampleRegistry_WithLimits() {
	reg := convert.Default().WithLimits(convert.Limits{MaxChars: 30})
	log := "GET /a 200\nGET /b 404\nGET /c 200\nGET /d 500\n"
	res, _ := reg.Convert(context.Background(), convert.Input{Name: "access.log", MediaType: "application/octet-stream", Data: []byte(log)})
	fmt.Print(res.Text)
	fmt.Printf("%d characters left out (%d %s)\n", res.Omitted.Chars, res.Omitted.Units, res.Omitted.Unit)
	// Output:
	// GET /a 200
	// GET /b 404
	// 22 characters left out (2 lines)
}

// shout is a converter of a made-up format.
type shout struct{}

func (shout) Format() convert.Format {
	return convert.Format{Kind: "shout", MediaTypes: []string{"application/x-shout"}, Extensions: []string{".shout"}}
}

func (shout) Convert(_ context.Context, in *convert.Input, lim convert.Limits) (*convert.Result, error) {
	return &convert.Result{As: "text", Description: "a shout", Text: strings.ToUpper(string(in.Data))}, nil
}

func ExampleRegistry_With() {
	reg := convert.Default().With(shout{})
	res, _ := reg.Convert(context.Background(), convert.Input{Name: "hello.shout", Data: []byte("hello")})
	fmt.Println(res.Kind, res.Text)
	// Output: shout HELLO
}

func ExampleFormatError() {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	_, err := convert.Default().Convert(context.Background(), convert.Input{Name: "leads.xlsx", Data: png})
	fmt.Println(err)
	// Output: convert: xlsx: the file is named or typed as xlsx but its content is an image (image/png)
}
