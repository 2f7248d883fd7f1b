package convert_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// upper is a converter a user adds: it claims its own media type and
// extension and recognises no content.
type upper struct{ kind string }

func (u upper) Format() convert.Format {
	return convert.Format{Kind: u.kind, MediaTypes: []string{"application/x-upper"}, Extensions: []string{".up"}}
}

func (u upper) Convert(_ context.Context, in *convert.Input, _ convert.Limits) (*convert.Result, error) {
	return &convert.Result{As: "text", Description: "shouting", Text: strings.ToUpper(string(in.Data))}, nil
}

type panicking struct{}

func (panicking) Format() convert.Format {
	return convert.Format{Kind: "boom", Extensions: []string{".boom"}}
}

func (panicking) Convert(context.Context, *convert.Input, convert.Limits) (*convert.Result, error) {
	var m map[string]int
	m["x"]++
	return nil, nil
}

func TestChoice(t *testing.T) {
	xlsx, docx := leadsWorkbook(t), reportDocx(t)
	reg := convert.Default().With(upper{"upper"})
	tests := []struct {
		name string
		in   convert.Input
		kind string
	}{
		{"by media type", convert.Input{Name: "x.bin", MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Data: xlsx}, "xlsx"},
		{"by extension", convert.Input{Name: "Report.DOCX", MediaType: "application/octet-stream", Data: docx}, "docx"},
		{"by content, no name or type", convert.Input{Data: xlsx}, "xlsx"},
		{"content beats a generic claim", convert.Input{Name: "report.zip", MediaType: "application/zip", Data: docx}, "docx"},
		{"content beats a wrong claim", convert.Input{Name: "leads.xlsx", Data: docx}, "docx"},
		{"text named as a workbook", convert.Input{Name: "leads.xlsx", Data: []byte("a,b\n1,2\n")}, "text"},
		{"a converter added by the user", convert.Input{Name: "a.up", Data: []byte("hi")}, "upper"},
		{"media type parameters ignored", convert.Input{MediaType: "Application/X-Upper; q=1", Data: []byte("hi")}, "upper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := reg.Convert(context.Background(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tt.kind {
				t.Errorf("Convert(%q, %q) kind = %q; want %q", tt.in.Name, tt.in.MediaType, res.Kind, tt.kind)
			}
		})
	}
}

func TestChoiceErrors(t *testing.T) {
	tests := []struct {
		name string
		reg  *convert.Registry
		in   convert.Input
		want func(error) bool
	}{
		{"an image no converter knows", convert.Default(), convert.Input{Name: "a.png", Data: pngHeader}, func(err error) bool { return errors.Is(err, convert.ErrUnsupported) }},
		{"a legacy Excel file", convert.Default(), convert.Input{Name: "old.xls", Data: append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...)}, func(err error) bool {
			return errors.Is(err, convert.ErrUnsupported) && strings.Contains(err.Error(), "legacy Office")
		}},
		{"text once text is removed", convert.Default().Without("text"), convert.Input{Name: "a.json", Data: []byte("{}")}, func(err error) bool { return errors.Is(err, convert.ErrUnsupported) }},
		{"a panic", convert.Default().With(panicking{}), convert.Input{Name: "a.boom", Data: []byte("x")}, func(err error) bool {
			var fe *convert.FormatError
			return errors.As(err, &fe) && fe.Kind == "boom" && strings.Contains(fe.Reason, "panic")
		}},
		{"a file over MaxInput", convert.Default().WithLimits(convert.Limits{MaxInput: 10}), convert.Input{Name: "a.json", Data: []byte(`{"a": "0123456789"}`)}, func(err error) bool {
			var le *convert.LimitError
			return errors.As(err, &le) && le.Limit == "input bytes" && errors.Is(err, convert.ErrLimit)
		}},
		{"a canceled context", convert.Default(), convert.Input{Name: "a.json", Data: []byte(`{}`)}, func(err error) bool { return errors.Is(err, context.Canceled) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if strings.Contains(tt.name, "canceled") {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			res, err := tt.reg.Convert(ctx, tt.in)
			if !tt.want(err) {
				t.Errorf("Convert(%s) = %+v, %v; not the error wanted", tt.in.Name, res, err)
			}
		})
	}
}

func TestWithReplacesByKind(t *testing.T) {
	reg := convert.Default().With(upper{"text"})
	kinds := []string{}
	for _, c := range reg.Converters() {
		kinds = append(kinds, c.Format().Kind)
	}
	if got := strings.Join(kinds, " "); got != "xlsx docx pptx ods odt odp eml rtf pdf zip tar text" {
		t.Errorf("Converters() = %s; want the built-ins in order, text replaced in place", got)
	}
	res, err := reg.Convert(context.Background(), convert.Input{Name: "a.up", Data: []byte("hi")})
	if err != nil || res.Text != "HI" {
		t.Errorf("Convert(a.up) = %+v, %v; want HI from the replacement", res, err)
	}
}
