package keel_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/keel-go/keel"
)

func ExampleMessage_Clone() {
	stored := keel.Message{Role: keel.RoleUser, Parts: []keel.Part{
		keel.TextPart{Text: "Read this"},
		keel.FilePart{Data: []byte("PK..."), MediaType: "application/zip", Filename: "a.zip"},
	}}
	prompt := stored.Clone()
	prompt.Parts[1] = keel.TextPart{Text: "[Attachment unavailable: a.zip]"}
	fmt.Println(stored.HasFiles(), prompt.HasFiles())
	// Output: true false
}

// A clone shares its metadata with the message it came from; WithMetadata
// sets a key in a copy, so the stored message keeps its own.
func ExampleMessage_WithMetadata() {
	stored := keel.Message{Role: keel.RoleUser, Metadata: map[string]any{"source": "upload"}}
	marked := stored.Clone().WithMetadata("reviewed", true)
	fmt.Println(len(stored.Metadata), len(marked.Metadata), marked.Metadata["source"], marked.Metadata["reviewed"])
	// Output: 1 2 upload true
}

func ExampleIsReadable() {
	for _, t := range []string{"image/png", "Text/CSV; charset=utf-8", "application/pdf", "application/zip", ""} {
		fmt.Printf("%q %v\n", t, keel.IsReadable(t))
	}
	// Output:
	// "image/png" true
	// "Text/CSV; charset=utf-8" true
	// "application/pdf" true
	// "application/zip" false
	// "" false
}

func ExampleFilePart_InlineData() {
	f := keel.FilePart{URL: keel.DataURL("text/plain", []byte("hello")), MediaType: "text/plain"}
	data, err := f.InlineData()
	fmt.Println(string(data), err)

	bad := keel.FilePart{URL: "data:text/plain;base64,!!!"}
	_, err = bad.InlineData()
	fmt.Println(errors.Is(err, keel.ErrUndecodableData))
	// Output:
	// hello <nil>
	// true
}

func ExampleUnsupportedFunctionalityError() {
	var err error = &keel.UnsupportedFunctionalityError{Functionality: "media type: application/zip"}
	fmt.Println(err)
	// Output: 'media type: application/zip' functionality not supported.
}

// A file received as base64 is taken only in the form
// base64.StdEncoding writes for its bytes, so that it reads back as it
// was sent; other text is refused (DecodeBase64 is the lenient reader).
func ExampleFileFromBase64() {
	f, err := keel.FileFromBase64("JVBERi0xLjQK", "application/pdf", "report.pdf")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", f.Data)

	_, err = keel.FileFromBase64("JVBERi0xLjQK\n", "application/pdf", "report.pdf")
	fmt.Println(errors.Is(err, keel.ErrUndecodableData))
	// Output:
	// "%PDF-1.4\n"
	// true
}

// A caller that bounds a whole run says what stalled when the bound
// passes: keel's provider adapters report each call's progress to the
// CallProgress the context carries.
func ExampleCallProgress() {
	p := &keel.CallProgress{}
	ctx := keel.WithCallProgress(context.Background(), p)
	// What an adapter does as its request goes out whole.
	keel.CallProgressFrom(ctx).Waiting("generativelanguage.googleapis.com")
	fmt.Println(p.Stalled(time.Now().Add(30 * time.Second)))
	// Output: generativelanguage.googleapis.com sent no byte of its answer in 30s
}

func ExampleMediaTypeOf() {
	fmt.Println(keel.MediaTypeOf("Q3.xlsx", nil))
	fmt.Println(keel.MediaTypeOf("scan", []byte("%PDF-1.7\n")))
	fmt.Println(keel.ExtensionOf("image/jpg"))
	// Output:
	// application/vnd.openxmlformats-officedocument.spreadsheetml.sheet
	// application/pdf
	// jpg
}
