// Command ledongthuc links github.com/ledongthuc/pdf, for its binary size.
package main

import (
	"bytes"
	"os"

	"github.com/ledongthuc/pdf"
)

func main() {
	r, err := pdf.NewReader(bytes.NewReader([]byte(os.Args[0])), 1)
	if err == nil {
		r.GetPlainText()
	}
}
