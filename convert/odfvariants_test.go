package convert_test

import (
	"context"
	"strings"
	"testing"

	"github.com/keel-go/keel/convert"
)

// memoBody is a text document's body: a heading written as a paragraph
// whose style is based on "Heading 1" (as LibreOffice writes a heading
// it imported from HTML or Word), one whose style is Heading 2 itself,
// and a paragraph.
const memoBody = `<office:automatic-styles><style:style style:name="P1" style:family="paragraph" style:parent-style-name="Memo_20_Title"/></office:automatic-styles>` +
	`<office:body><office:text><text:p text:style-name="P1">Memo to staff</text:p><text:p text:style-name="Heading_20_2">Hours</text:p><text:p text:style-name="Standard">The office opens at nine.</text:p></office:text></office:body>`

const memoStyles = `<style:style style:name="Standard" style:family="paragraph" style:class="text"/>` +
	`<style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard" style:class="text"/>` +
	`<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Heading" style:class="text"/>` +
	`<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Heading" style:class="text"/>` +
	`<style:style style:name="Memo_20_Title" style:display-name="Memo Title" style:family="paragraph" style:parent-style-name="Heading_20_1"/>`

const memoText = "# Memo to staff\n\n## Hours\n\nThe office opens at nine.\n"

func TestODFVariants(t *testing.T) {
	tests := []struct {
		name, mime, file string
	}{
		{"text", "application/vnd.oasis.opendocument.text", "memo.odt"},
		{"text template", "application/vnd.oasis.opendocument.text-template", "memo.ott"},
		{"text-web, named .odt", "application/vnd.oasis.opendocument.text-web", "memo.odt"},
		{"text-web, sent as a zip", "application/vnd.oasis.opendocument.text-web", "memo.zip"},
		{"text-master", "application/vnd.oasis.opendocument.text-master", "book.odm"},
		{"text-master template", "application/vnd.oasis.opendocument.text-master-template", "book.otm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := odfPackage(t, tt.mime, memoBody, memoStyles)
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.file, Data: data})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != "odt" || res.Text != memoText {
				t.Errorf("Convert(%s, %s) = kind %q, text\n%s\nwant kind odt, text\n%s", tt.file, tt.mime, res.Kind, res.Text, memoText)
			}
		})
	}
}

// TestPackagesNotDumped checks that a document package no converter
// reads is listed, never shown as its XML.
func TestPackagesNotDumped(t *testing.T) {
	drawing := odfPackage(t, "application/vnd.oasis.opendocument.graphics",
		`<office:body><office:drawing><draw:page draw:name="page1"><draw:frame><draw:text-box><text:p>Floor plan, level 2</text:p></draw:text-box></draw:frame></draw:page></office:drawing></office:body>`, memoStyles)
	visio := makeZip(t,
		part{"[Content_Types].xml", xmlDecl + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		part{"_rels/.rels", packageRels("visio/document.xml")},
		part{"visio/document.xml", xmlDecl + `<VisioDocument xmlns="http://schemas.microsoft.com/office/visio/2012/main"><DocumentSettings TopPage="0"/></VisioDocument>`})
	tests := []struct {
		name, file string
		data       []byte
		want       []string
		desc       string
	}{
		{"OpenDocument drawing", "plan.odg", drawing, []string{"content.xml (", "## Text\n\nFloor plan, level 2\n"}, "OpenDocument package (application/vnd.oasis.opendocument.graphics), 5 entries, 1 paragraph"},
		{"Visio drawing", "plan.vsdx", visio, []string{"visio/document.xml ("}, "Office Open XML package, 3 entries (its XML is not shown)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := convert.Default().Convert(context.Background(), convert.Input{Name: tt.file, MediaType: "application/zip", Data: tt.data})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(res.Text, "<") || res.Description != tt.desc {
				t.Errorf("Convert(%s) = description %q, text\n%s\nwant description %q and no XML", tt.file, res.Description, res.Text, tt.desc)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("Convert(%s) text\n%s\nwant it to hold %q", tt.file, res.Text, w)
				}
			}
		})
	}
}
