package console_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/keel-go/keel/console"
)

// The console answers its page at its own paths, deep links included, and
// the API is left to the server it is mounted in.
func ExampleNew() {
	h, err := console.New()
	if err != nil {
		panic(err)
	}
	for _, path := range []string{"/", "/threads/t-1", "/nothing-here"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		fmt.Println(path, rec.Code, strings.Contains(rec.Body.String(), "<title>keel console</title>"))
	}
	// Output:
	// / 200 true
	// /threads/t-1 200 true
	// /nothing-here 404 false
}
