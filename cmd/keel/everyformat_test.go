package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/internal/officetest"
	"github.com/keel-go/keel/provider/google/googletest"
	"github.com/keel-go/keel/provider/providertest"
)

// libreOffice converts src (in dir) to each format with LibreOffice,
// headless, as a user's office suite writes them, and returns the files'
// names.
func libreOffice(t *testing.T, dir, src string, formats ...string) []string {
	t.Helper()
	bin, err := exec.LookPath("soffice")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("soffice is missing; CI is set, so this fails instead of skipping (scripts/test.sh installs LibreOffice)")
		}
		t.Skip("LibreOffice (soffice) writes the files this test sends; install libreoffice-writer and libreoffice-calc")
	}
	profile := "file://" + filepath.Join(t.TempDir(), "profile")
	var out []string
	for _, f := range formats {
		cmd := exec.Command(bin, "-env:UserInstallation="+profile, "--headless", "--convert-to", f, "--outdir", dir, filepath.Join(dir, src))
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("soffice --convert-to %s %s: %v\n%s", f, src, err, b)
		}
		name := strings.TrimSuffix(src, filepath.Ext(src)) + "." + f
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("soffice wrote no %s: %v", name, err)
		}
		out = append(out, name)
	}
	return out
}

// TestRunGeminiRefusesEveryFormat sends, through keel run, each format
// LibreOffice writes (and the Office files keel's tests write) to a
// Gemini-protocol server that refuses every inline file with Gemini's own
// "Unsupported MIME type" answer: the model gets the file's text in 2
// calls.
func TestRunGeminiRefusesEveryFormat(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "memo.docx"), officetest.Document(t, "Quarterly memo",
		[]string{"Revenue rose QZREVENUE in the third quarter."}, [][]string{{"Region", "Sales"}, {"North", "QZNORTH"}}))
	writeFile(t, filepath.Join(dir, "leads.xlsx"), leads(t))
	files := []string{"memo.docx", "leads.xlsx"}
	files = append(files, libreOffice(t, dir, "memo.docx", "doc", "odt", "rtf", "pdf")...)
	files = append(files, libreOffice(t, dir, "leads.xlsx", "xls", "ods")...)

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
			want := []string{"QZREVENUE", "QZNORTH"}
			if strings.HasPrefix(name, "leads") {
				want = []string{"Ada", "Berlin", "Grace", "Paris"}
			}
			for _, w := range want {
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
