package providertest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/keel-go/keel/provider/providertest"
)

func ExampleServer() {
	s := providertest.Start(
		providertest.Reply{Status: 503, Body: `{"error":{"message":"busy"}}`},
		providertest.Reply{Body: `{"ok":true}`},
	)
	defer s.Close()
	for range 3 {
		resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(b))
	}
	fmt.Println(len(s.Requests()), s.Requests()[0].Path)
	// Output:
	// 503 {"error":{"message":"busy"}}
	// 200 {"ok":true}
	// 200 {"ok":true}
	// 3 /v1/chat/completions
}

func ExamplePeakHeap() {
	var kept []byte
	peak := providertest.PeakHeap(func() {
		kept = make([]byte, 64<<20)
	})
	// The heap is shared with every goroutine of the process, so the figure
	// is compared with a margin: other garbage collected meanwhile lowers it.
	fmt.Println(len(kept)>>20, "MiB kept;", "peak at least 32 MiB:", peak >= 32<<20)
	// Output:
	// 64 MiB kept; peak at least 32 MiB: true
}
