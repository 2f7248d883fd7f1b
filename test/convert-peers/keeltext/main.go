// Command keeltext converts files with keel's converters and prints, for
// each, a JSON line of its name, its text and the mean time of one
// conversion in milliseconds (after one to warm up, repeated for at least
// half a second), for
// compare.mjs to set beside other converters' text.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/keel-go/keel/convert"
)

func main() {
	reg := convert.Default()
	enc := json.NewEncoder(os.Stdout)
	for _, name := range os.Args[1:] {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		in := convert.Input{Name: name, Data: data}
		res, err := reg.Convert(context.Background(), in) // once to warm up
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		n, start := 0, time.Now()
		for n == 0 || time.Since(start) < 500*time.Millisecond {
			if res, err = reg.Convert(context.Background(), in); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				os.Exit(1)
			}
			n++
		}
		ms := float64(time.Since(start).Microseconds()) / 1000 / float64(n)
		enc.Encode(map[string]any{"file": name, "ms": ms, "text": res.Text})
	}
}
