package keel_test

import (
	"errors"
	"fmt"

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
