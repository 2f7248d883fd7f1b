package convert_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

// projectFiles are the members of the archives below: a directory, a
// text file, an image, a text file over the size shown, and a nested
// archive, which is only listed.
func projectFiles(t testing.TB) []part {
	return []part{
		{"project/", ""},
		{"project/README.md", "# Project\r\nΠρόγραμμα 計画\r\n"},
		{"project/logo.png", string(pngHeader)},
		{"project/big.log", strings.Repeat("x", 70<<10)},
		{"project/inner.zip", string(makeZip(t, part{"secret.txt", "not shown"}))},
	}
}

func makeTar(t testing.TB, gz bool, files []part) []byte {
	var buf bytes.Buffer
	var w = &buf
	var zw *gzip.Writer
	var tw *tar.Writer
	if gz {
		zw = gzip.NewWriter(w)
		tw = tar.NewWriter(zw)
	} else {
		tw = tar.NewWriter(w)
	}
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}
		if strings.HasSuffix(f.name, "/") {
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestArchives(t *testing.T) {
	files := projectFiles(t)
	if n := len(files[4].body); n != 149 {
		t.Fatalf("the nested zip is %d bytes; the listings below expect 149", n)
	}
	listing := func(kind string) string {
		return "# " + kind + " archive: 5 entries, 71,900 bytes unpacked\n" +
			"project/ (directory)\n" +
			"project/README.md (38 bytes)\n" +
			"project/logo.png (33 bytes)\n" +
			"project/big.log (71,680 bytes)\n" +
			"project/inner.zip (149 bytes)\n" +
			"\n## project/README.md\n# Project\nΠρόγραμμα 計画\n"
	}
	tests := []struct {
		name, file, kind, want, desc string
		data                         []byte
	}{
		{"zip", "project.zip", "zip", listing("zip"), "zip archive, 5 entries (1 shown as text)", makeZip(t, files...)},
		{"tar", "project.tar", "tar", listing("tar"), "tar archive, 5 entries (1 shown as text)", makeTar(t, false, files)},
		{"tar.gz", "project.tar.gz", "tar", listing("tar.gz"), "tar.gz archive, 5 entries (1 shown as text)", makeTar(t, true, files)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.file, Data: tt.data})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tt.kind || res.Text != tt.want || res.Description != tt.desc || len(res.Parts) != 5 || res.Parts[3].Size != 70<<10 {
				t.Errorf("Convert(%s) = kind %q, %q, parts %+v, text\n%s\nwant kind %q, %q, text\n%s", tt.file, res.Kind, res.Description, res.Parts, res.Text, tt.kind, tt.desc, tt.want)
			}
		})
	}
}
