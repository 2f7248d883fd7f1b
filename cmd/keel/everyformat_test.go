package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

// corpus holds office files LibreOffice wrote (convert/testdata/corpus/make.sh
// and convert/testdata/pdf, which say how), each with markers in its text.
var corpus = map[string][]string{
	"../../convert/testdata/corpus/report.doc": {"QZH1", "QZBODY", "QZCELL"},
	"../../convert/testdata/corpus/report.odt": {"QZH1", "QZBODY", "QZCELL"},
	"../../convert/testdata/corpus/report.rtf": {"QZH1", "QZBODY", "QZCELL"},
	"../../convert/testdata/pdf/report.pdf":    {"PAGEONEMARK", "LEFTSTART", "RIGHTEND"},
	"../../convert/testdata/corpus/leads.xls":  {"QZNAME1", "QZTOTAL"},
	"../../convert/testdata/corpus/leads.ods":  {"QZNAME1", "QZTOTAL"},
}

// TestRunGeminiRefusesEveryFormat sends, through keel run, each format
// LibreOffice writes (the corpus above) and the Office files keel's tests
// write to a Gemini-protocol server that refuses every inline file with
// Gemini's own "Unsupported MIME type" answer: the model gets the file's
// text in 2 calls.
func TestRunGeminiRefusesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "memo.docx"), officetest.Document(t, "Quarterly memo",
		[]string{"Revenue rose QZREVENUE in the third quarter."}, [][]string{{"Region", "Sales"}, {"North", "QZNORTH"}}))
	writeFile(t, filepath.Join(dir, "leads.xlsx"), leads(t))
	want := map[string][]string{"memo.docx": {"QZREVENUE", "QZNORTH"}, "leads.xlsx": {"Ada", "Berlin", "Grace", "Paris"}}
	files := []string{"memo.docx", "leads.xlsx"}
	for src, markers := range corpus {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(src)
		writeFile(t, filepath.Join(dir, name), b)
		want[name] = markers
		files = append(files, name)
	}
	slices.Sort(files[2:])

	srv := googletest.NewServer(t, googletest.Options{Respond: func(r googletest.Request, _ int) (providertest.Reply, bool) {
		var body struct {
			Contents []struct {
				Parts []struct {
					InlineData *struct {
						MimeType string `json:"mimeType"`
					} `json:"inlineData"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			return providertest.Reply{}, false
		}
		for _, c := range body.Contents {
			for _, p := range c.Parts {
				if p.InlineData != nil {
					msg, _ := json.Marshal("Unsupported MIME type: " + p.InlineData.MimeType)
					return providertest.Reply{Status: 400, Body: `{"error":{"code":400,"message":` + string(msg) + `,"status":"INVALID_ARGUMENT"}}`}, true
				}
			}
		}
		return providertest.Reply{}, false
	}})
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			before := len(srv.Requests())
			res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--db", filepath.Join(dir, name+".db"),
				"--sandbox", filepath.Join(dir, "sb-"+name), "--file", name, "What does this say?")
			out := decode[turnJSON](t, "run output", res.stdout)
			reqs := srv.Requests()[before:]
			if out.Calls != 2 || len(reqs) != 2 {
				t.Fatalf("Got(run) = %d calls, %d requests; want 2", out.Calls, len(reqs))
			}
			last := string(reqs[1].Body)
			for _, w := range want[name] {
				if !strings.Contains(last, w) {
					t.Errorf("Got(the model's request) without %q; want the file's text:\n%.1500s", w, last)
				}
			}
			if strings.Contains(last, "inlineData") {
				t.Errorf("Got(the retry) with a file inline; want the file taken out")
			}
		})
	}
}
