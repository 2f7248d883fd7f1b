// Command keel links keel's PDF converter, for its binary size.
package main

import (
	"context"
	"os"

	"github.com/keel-go/keel/convert"
)

func main() {
	_, err := convert.PDF().Convert(context.Background(), &convert.Input{Data: []byte(os.Args[0])}, convert.Limits{})
	println(err)
}
