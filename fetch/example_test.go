package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/keel-go/keel/fetch"
)

func ExampleClient_Check() {
	c, err := fetch.New(fetch.Options{AllowHosts: []string{"files.example.com", "*.cdn.example"}})
	if err != nil {
		panic(err)
	}
	for _, link := range []string{
		"https://files.example.com/report.pdf",
		"https://eu.cdn.example/photo.png",
		"https://evil.example/report.pdf",
		"http://2130706433/report.pdf",
		"https://files.example.com@evil.example/report.pdf",
	} {
		var fe *fetch.Error
		if err := c.Check(link); errors.As(err, &fe) {
			fmt.Println(fe.Code, link)
			continue
		}
		fmt.Println("ok", link)
	}
	// Output:
	// ok https://files.example.com/report.pdf
	// ok https://eu.cdn.example/photo.png
	// HOST_NOT_ALLOWED https://evil.example/report.pdf
	// BAD_URL http://2130706433/report.pdf
	// BAD_URL https://files.example.com@evil.example/report.pdf
}

func ExampleClient_Get() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		fmt.Fprint(w, "Name,City\nAda,Berlin\n")
	}))
	defer srv.Close()
	// A server on this machine is downloaded from only when the list
	// names it exactly.
	c, err := fetch.New(fetch.Options{AllowHosts: []string{"127.0.0.1"}})
	if err != nil {
		panic(err)
	}
	f, err := c.Get(context.Background(), srv.URL+"/leads.csv", "text/csv")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %q\n", f.MediaType, f.Data)
	// Output:
	// text/csv: "Name,City\nAda,Berlin\n"
}

func ExampleMediaTypeMatches() {
	fmt.Println(fetch.MediaTypeMatches("application/pdf", "application/pdf; qs=0.9"))
	fmt.Println(fetch.MediaTypeMatches("application/pdf", "application/octet-stream"))
	fmt.Println(fetch.MediaTypeMatches("application/pdf", "text/html"))
	// Output:
	// true
	// true
	// false
}
