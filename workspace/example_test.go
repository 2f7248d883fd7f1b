package workspace_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/workspace"
)

func ExampleUpload() {
	sb := keeltest.NewSandbox("sandbox-1")
	f := workspace.File{Name: "leads.csv", MediaType: "text/csv; charset=utf-8", Data: []byte("id,name\n1,Ada\n")}

	u, err := workspace.Upload(context.Background(), sb, "thread-1", "user-7", f)
	if err != nil {
		fmt.Println(workspace.UnavailablePlaceholder(workspace.DisplayName(f.Name, f.MediaType)))
		return
	}
	fmt.Println(workspace.UploadNote(u))

	// The same file again is already there.
	again, _ := workspace.Upload(context.Background(), sb, "thread-1", "user-7", f)
	fmt.Println("written again:", again.Written)
	// Output:
	// [File uploaded to the sandbox]
	// path: /home/user/uploads/thread-1/b57e1a894aa62a12ddad0a68f4caa364a9f5b111631f10e146e28df2f88a7068.csv
	// name: leads.csv
	// type: text/csv
	// size: 14 bytes
	// written again: false
}

func ExampleUpload_tooLarge() {
	sb := keeltest.NewSandbox("sandbox-1")
	f := workspace.File{MediaType: "application/zip", Data: make([]byte, workspace.MaxUploadSize+1)}

	_, err := workspace.Upload(context.Background(), sb, "thread-1", "", f)
	if tooLarge, ok := errors.AsType[*workspace.FileTooLargeError](err); ok {
		fmt.Println(workspace.NotUploadedNote(workspace.DisplayName(f.Name, f.MediaType), tooLarge.Error()))
	}
	fmt.Println("files in the sandbox:", len(sb.Files()))
	// Output:
	// [File not uploaded]
	// name: application/zip
	// reason: An unnamed file is 10485761 bytes, over the 10485760 byte limit.
	// files in the sandbox: 0
}

func ExampleUploadDir() {
	fmt.Println(workspace.UploadDir("thread-1", "user-7"))
	fmt.Println(workspace.UploadDir("", "user-7"))
	fmt.Println(workspace.UploadDir("", ""))
	fmt.Println(workspace.UploadDir("../../Ünïcödé; rm -rf /", ""))
	// Output:
	// thread-1
	// user-7
	// shared
	// Unicode_rm_-rf
}

func ExampleExtension() {
	fmt.Println(workspace.Extension("Q3 Report.XLSX", ""))
	fmt.Println(workspace.Extension("", "application/pdf"))
	fmt.Printf("%q\n", workspace.Extension("Makefile", "text/plain"))
	// Output:
	// xlsx
	// pdf
	// ""
}

func ExampleDisplayName() {
	fmt.Println(workspace.DisplayName("\x1b[31mleads\x1b[0m.xlsx", ""))
	fmt.Println(workspace.DisplayName("", "application/vnd.ms-excel"))
	fmt.Println(workspace.DisplayName("", ""))
	// Output:
	// leads.xlsx
	// application/vnd.ms-excel
	// file
}

func ExampleUndecodableReason() {
	fmt.Println(workspace.NotUploadedNote("data.xlsx", workspace.UndecodableReason("data.xlsx")))
	fmt.Println(workspace.UndecodableReason(""))
	// Output:
	// [File not uploaded]
	// name: data.xlsx
	// reason: File "data.xlsx" has inline data that cannot be decoded.
	// An unnamed file has inline data that cannot be decoded.
}

func ExampleUnavailablePlaceholder() {
	fmt.Println(workspace.UnavailablePlaceholder("leads.xlsx"))
	// Output:
	// [Attachment unavailable: leads.xlsx]
}

func ExampleShellQuote() {
	name := "it's; rm -rf ~"
	fmt.Println("cat " + workspace.ShellQuote(name))
	// Output:
	// cat 'it'\''s; rm -rf ~'
}
