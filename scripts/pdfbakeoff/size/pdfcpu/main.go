// Command pdfcpu links pdfcpu's content extraction, for its binary size.
package main

import (
	"io"
	"os"

	"github.com/pdfcpu/pdfcpu/pkg/api"
)

func main() {
	println(api.ExtractContent(os.Stdin, nil, func(io.Reader, int) error { return nil }, nil))
}
