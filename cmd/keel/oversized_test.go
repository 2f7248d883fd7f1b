package main_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/google/googletest"
)

// TestRunOversizedFile: a refused file over the 10 MiB an upload may be is
// explained the same way everywhere: the model's note, the recovery's
// reason in --json, and the line keel run prints.
func TestRunOversizedFile(t *testing.T) {
	srv := googletest.NewServer(t, googletest.Options{Unsupported: []string{xlsxType}})
	dir := t.TempDir()
	big := make([]byte, 11<<20)
	copy(big, xlsxBytes())
	writeFile(t, filepath.Join(dir, "big.xlsx"), big)
	reason := fmt.Sprintf(`File "big.xlsx" is %d bytes, over the 10485760 byte limit.`, len(big))

	res := mustKeel(t, dir, geminiEnv(srv), "run", "--json", "--file", "big.xlsx", "What is in it?")
	out := decode[runJSON](t, "run output", res.stdout)
	if len(out.Recoveries) != 1 || out.Recoveries[0].Action != "not-uploaded" || len(out.Recoveries[0].Files) != 1 ||
		out.Recoveries[0].Files[0].Reason != reason || out.Recoveries[0].Files[0].Size != int64(len(big)) {
		t.Errorf("Got(recoveries) = %+v; want big.xlsx not uploaded, with the reason %q", out.Recoveries, reason)
	}
	second, _ := srv.Requests()[1].Decode()
	if text := strings.Join(second.UserTexts(), "\n"); !strings.Contains(text, "[File not uploaded]") || !strings.Contains(text, "reason: "+reason) {
		t.Errorf("Got(the model's note) = %q; want [File not uploaded] with the reason %q", text, reason)
	}

	// The refusal is remembered by now: the line says so, and the rest is the same.
	res = mustKeel(t, dir, geminiEnv(srv), "run", "--file", "big.xlsx", "What is in it?")
	if want := "keel run: big.xlsx not uploaded: " + reason + " (unsupported-file-handler; google/gemini-2.5-flash refused " + xlsxType +
		" before, so keel did not send it again (learned "; !strings.Contains(res.stderr, want) {
		t.Errorf("Got(stderr) = %q; want the remembered refusal of %q", res.stderr, want)
	}
}
