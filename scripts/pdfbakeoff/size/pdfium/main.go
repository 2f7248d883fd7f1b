// Command pdfium links go-pdfium's WebAssembly build (PDFium under
// wazero, its module embedded), for its binary size.
package main

import "github.com/klippa-app/go-pdfium/webassembly"

func main() {
	p, err := webassembly.Init(webassembly.Config{})
	println(p, err)
}
