package google_test

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/provider/google/googletest"
)

// TestDataURLFiles checks how a file given as a data: URL is sent:
// standard padded base64 as it is (so "QR==", whose padding bits a
// decoder ignores, stays "QR==" rather than coming back as "QQ=="), any
// other form decoded and encoded as standard base64, and an undecodable
// one refused before anything is sent.
func TestDataURLFiles(t *testing.T) {
	pdf := []byte("%PDF-1.7 \xff\xfe\xfd body")
	cases := []struct {
		name, url, mediaType string
		wantType, wantData   string
	}{
		{"standard", "data:application/pdf;base64," + base64.StdEncoding.EncodeToString(pdf), "", "application/pdf", base64.StdEncoding.EncodeToString(pdf)},
		{"padding bits kept", "data:text/plain;base64,QR==", "", "text/plain", "QR=="},
		{"part's type wins", "data:text/plain;base64,QQ==", "application/pdf", "application/pdf", "QQ=="},
		{"unpadded", "data:application/pdf;base64," + base64.RawStdEncoding.EncodeToString(pdf), "", "application/pdf", base64.StdEncoding.EncodeToString(pdf)},
		{"url-safe", "data:application/pdf;base64," + base64.URLEncoding.EncodeToString(pdf), "", "application/pdf", base64.StdEncoding.EncodeToString(pdf)},
		{"plain text", "data:text/plain,hello", "", "text/plain", base64.StdEncoding.EncodeToString([]byte("hello"))},
		{"empty", "data:text/plain;base64,", "", "text/plain", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body, _ := sent(t, &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
				keel.FilePart{URL: c.url, MediaType: c.mediaType},
			}}}})
			var got *googletest.InlineData
			for _, p := range body.Contents[0].Parts {
				if p.InlineData != nil {
					got = p.InlineData
				}
			}
			if got == nil || got.MIMEType != c.wantType || got.Data != c.wantData {
				t.Errorf("Got(inlineData of %.40q) = %+v; want {%s %.40s}", c.url, got, c.wantType, c.wantData)
			}
		})
	}
}

func TestUndecodableDataURL(t *testing.T) {
	for _, url := range []string{
		"data:application/pdf;base64,@@@@",
		"data:application/pdf;base64,QQ=A",
		"data:application/pdf;base64",
	} {
		srv := googletest.NewServer(t, googletest.Options{})
		m := newModel(t, srv.URL())
		_, err := m.Generate(context.Background(), &keel.Request{Messages: []keel.Message{{Role: keel.RoleUser, Parts: []keel.Part{
			keel.FilePart{URL: url, MediaType: "application/pdf"},
		}}}})
		if !errors.Is(err, keel.ErrUndecodableData) {
			t.Errorf("Got(Generate(%q)) = %v; want an error wrapping keel.ErrUndecodableData", url, err)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("Got(requests sent for %q) = %d; want 0", url, n)
		}
	}
}
