package googletest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google"
	"github.com/keel-go/keel/provider/google/googletest"
)

// A server that refuses spreadsheets the way Gemini does, and the request
// the adapter sent it.
func ExampleServer() {
	srv := googletest.Start(googletest.Options{Unsupported: []string{
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	}})
	defer srv.Close()

	m, _ := google.New("gemini-2.5-flash", google.Options{APIKey: "test", BaseURL: srv.URL()})
	_, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{{
		Role: keel.RoleUser,
		Parts: []keel.Part{
			keel.TextPart{Text: "Summarise the leads."},
			keel.FilePart{Data: []byte("PK..."), MediaType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Filename: "leads.xlsx"},
		},
	}}})
	var api *keel.APICallError
	if errors.As(err, &api) {
		fmt.Println(api.StatusCode, api.Type, api.Message)
	}
	body, _ := srv.Requests()[0].Decode()
	fmt.Println(body.UserTexts(), body.InlineMediaTypes())
	// Output:
	// 400 INVALID_ARGUMENT Unsupported MIME type: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet
	// [Summarise the leads.] [application/vnd.openxmlformats-officedocument.spreadsheetml.sheet]
}
