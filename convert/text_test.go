package convert_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

func TestText(t *testing.T) {
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range "név,város\nÁdám,Győr\n" {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	tests := []struct {
		name      string
		in        convert.Input
		want      string
		desc      string
		omitChars int
	}{
		{"json", convert.Input{Name: "data", MediaType: "application/json", Data: []byte("{\"name\": \"Ελένη\",\r\n \"n\": 3}\r\n")}, "{\"name\": \"Ελένη\",\n \"n\": 3}\n", "JSON, 2 lines", 0},
		{"ndjson as octet-stream", convert.Input{Name: "events", MediaType: "application/octet-stream", Data: []byte("{\"a\":1}\n{\"a\":2}\n")}, "{\"a\":1}\n{\"a\":2}\n", "NDJSON, 2 lines", 0},
		{"go source", convert.Input{Name: "main.go", MediaType: "application/octet-stream", Data: []byte("package main\n\nfunc main() {}\n")}, "package main\n\nfunc main() {}\n", "Go, 3 lines", 0},
		{"yaml", convert.Input{Name: "config.yaml", MediaType: "application/x-yaml", Data: []byte("a: 1\nb: [x, y]")}, "a: 1\nb: [x, y]", "YAML, 2 lines", 0},
		{"utf-16 csv", convert.Input{Name: "people.csv", MediaType: "application/vnd.ms-excel", Data: utf16}, "név,város\nÁdám,Győr\n", "CSV, 2 lines", 0},
		{"latin-1 by charset", convert.Input{Name: "notes", MediaType: "application/x-toml; charset=iso-8859-1", Data: []byte("caf\xe9 = \"cr\xe8me\"\n")}, "café = \"crème\"\n", "TOML, 1 line", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != "text" || res.Text != tt.want || res.Description != tt.desc || res.Omitted.Chars != tt.omitChars {
				t.Errorf("Convert(%s) = kind %q, %q, %q, omitted %+v; want text, %q, %q", tt.in.Name, res.Kind, res.Text, res.Description, res.Omitted, tt.want, tt.desc)
			}
		})
	}
}

func TestTextBinaryIsUnsupported(t *testing.T) {
	_, err := convert.Default().Convert(context.Background(), convert.Input{Name: "blob", MediaType: "application/octet-stream", Data: []byte{0, 1, 2, 0xff, 0xfe, 0, 7}})
	if !errors.Is(err, convert.ErrUnsupported) {
		t.Errorf("Convert(binary blob) error = %v; want ErrUnsupported", err)
	}
}

// TestCap shows the cap: text is cut after the last whole line that fits,
// and what was left out is counted in characters and lines; a single
// line longer than the cap is cut inside so the text is never empty.
func TestCap(t *testing.T) {
	reg := convert.Default().WithLimits(convert.Limits{MaxChars: 20})
	tests := []struct {
		name, data, want string
		omitted          convert.Omission
	}{
		{"lines", "line one\nline two\nline three\n", "line one\nline two\n", convert.Omission{Chars: 11, Units: 1, Unit: "lines"}},
		{"one long line", `{"k":"` + strings.Repeat("é", 30) + `"}`, `{"k":"` + strings.Repeat("é", 14), convert.Omission{Chars: 18, Units: 1, Unit: "lines"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := reg.Convert(context.Background(), convert.Input{Name: "x.json", Data: []byte(tt.data)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tt.want || res.Omitted != tt.omitted {
				t.Errorf("Convert(%q) = %q, omitted %+v; want %q, omitted %+v", tt.data, res.Text, res.Omitted, tt.want, tt.omitted)
			}
		})
	}
}
