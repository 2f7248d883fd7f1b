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
		fmt.Println(err)
		return
	}
	fmt.Println(u.Path)
	fmt.Println(u.Size, "bytes, written:", u.Written)

	// The same file again is already there.
	again, _ := workspace.Upload(context.Background(), sb, "thread-1", "user-7", f)
	fmt.Println("written again:", again.Written)
	// Output:
	// /home/user/uploads/thread-1/b57e1a894aa62a12ddad0a68f4caa364a9f5b111631f10e146e28df2f88a7068.csv
	// 14 bytes, written: true
	// written again: false
}

func ExampleUpload_tooLarge() {
	sb := keeltest.NewSandbox("sandbox-1")
	f := workspace.File{MediaType: "application/zip", Data: make([]byte, workspace.MaxUploadSize+1)}

	_, err := workspace.Upload(context.Background(), sb, "thread-1", "", f)
	if tooLarge, ok := errors.AsType[*workspace.FileTooLargeError](err); ok {
		fmt.Println(tooLarge.Size, "bytes, over", tooLarge.Limit)
	}
	fmt.Println(err)
	fmt.Println("files in the sandbox:", len(sb.Files()))
	// Output:
	// 10485761 bytes, over 10485760
	// workspace: upload: file is 10485761 bytes, over the 10485760 byte limit
	// files in the sandbox: 0
}

// An Uploader checks once that its sandbox can take files, then puts any
// number of them there.
func ExampleNewUploader() {
	if _, err := workspace.NewUploader(struct{ workspace.Sandbox }{keeltest.NewSandbox("id-only")}); err != nil {
		fmt.Println(err)
	}
	up, err := workspace.NewUploader(keeltest.NewSandbox("sandbox-1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		u, err := up.Upload(context.Background(), "thread-1", "", workspace.File{Name: name, Data: []byte(name)})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(u.RelPath)
	}
	// Output:
	// workspace: sandbox can neither write files nor run commands
	// uploads/thread-1/18b7cb099a9ea3f50ba899b5ba81e0d377a5f3b16f8f6eeb8b3e58cd4692b993.txt
	// uploads/thread-1/ffa0da5d885fba09d903c782713b6b098c8cf21f56a3a35d9aa920613220d2e1.txt
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

func ExampleShellQuote() {
	name := "it's; rm -rf ~"
	fmt.Println("cat " + workspace.ShellQuote(name))
	// Output:
	// cat 'it'\''s; rm -rf ~'
}
