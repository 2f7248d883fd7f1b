// Command none is the baseline of the binary sizes: a program that
// imports no PDF reader.
package main

import "os"

func main() { os.Stdout.WriteString("none\n") }
