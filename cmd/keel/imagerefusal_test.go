package main_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/keel-go/keel/provider/providertest"
)

// heicPhoto writes a 64×48 HEIC (left half red, right half blue) with
// ImageMagick, as a phone's camera would send one, into dir.
func heicPhoto(t *testing.T, dir string) string {
	t.Helper()
	bin, err := exec.LookPath("convert")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ImageMagick's convert is missing; CI is set, so this fails instead of skipping (scripts/test.sh installs imagemagick)")
		}
		t.Skip("ImageMagick's convert writes the HEIC this test sends; install imagemagick")
	}
	m := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := range 48 {
		for x := range 64 {
			c := color.RGBA{220, 20, 20, 255}
			if x >= 32 {
				c = color.RGBA{20, 20, 220, 255}
			}
			m.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "src.png"), b.Bytes())
	cmd := exec.Command(bin, "src.png", "-quality", "90", "photo.heic")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("convert src.png photo.heic: %v\n%s", err, out)
	}
	return "photo.heic"
}

// TestRunHEICToOpenAI sends a phone's HEIC photo through keel run to an
// OpenAI model, whose API takes PNG, JPEG, GIF and WebP only: the first
// turn costs 2 calls, one the adapter refuses before sending (HEIC) and
// one in which the model gets the photo as a PNG or JPEG; every later
// turn 1; the stored message keeps the HEIC.
func TestRunHEICToOpenAI(t *testing.T) {
	srv := providertest.NewServerFunc(t, func(providertest.Recorded, int) providertest.Reply {
		return providertest.Reply{Body: chatAnswer}
	})
	dir := t.TempDir()
	photo := heicPhoto(t, dir)
	db := filepath.Join(dir, "k.db")
	environ := env("KEEL_MODEL=openai/gpt-4o-mini", "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL()+"/v1")
	turn := func(args ...string) turnJSON {
		t.Helper()
		res := mustKeel(t, dir, environ, append([]string{"run", "--json", "--db", db, "--sandbox", filepath.Join(dir, "sb")}, args...)...)
		return decode[turnJSON](t, "run output", res.stdout)
	}
	sentImage := regexp.MustCompile(`"url":"data:(image/[a-z]+);base64,([A-Za-z0-9+/=]+)"`)
	checkImage := func(when string, body []byte) {
		t.Helper()
		m := sentImage.FindSubmatch(body)
		if m == nil || (string(m[1]) != "image/png" && string(m[1]) != "image/jpeg") {
			t.Fatalf("Got(%s request) = %.400s; want the photo as a PNG or JPEG", when, body)
		}
		data, err := base64.StdEncoding.DecodeString(string(m[2]))
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: the image sent does not decode: %v", when, err)
		}
		if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 48 {
			t.Errorf("Got(%s image size) = %v; want 64×48", when, b.Size())
		}
		if r, _, bl, _ := img.At(8, 24).RGBA(); r>>8 < 150 || bl>>8 > 100 {
			t.Errorf("Got(%s pixel 8,24) = %v; want red", when, img.At(8, 24))
		}
		if r, _, bl, _ := img.At(56, 24).RGBA(); r>>8 > 100 || bl>>8 < 150 {
			t.Errorf("Got(%s pixel 56,24) = %v; want blue", when, img.At(56, 24))
		}
		// The note of the file in the sandbox names its type; what must
		// not go is the HEIC itself.
		if bytes.Contains(body, []byte("data:image/heic")) || bytes.Contains(body, []byte("data:image/heif")) {
			t.Errorf("Got(%s request) holds the HEIC itself; want only the converted photo", when)
		}
	}
	out := turn("--new-thread", "t1", "--file", photo, "What colours are in this photo?")
	if out.Calls != 1 || out.RefusedBeforeSending != 1 || len(srv.Requests()) != 1 {
		t.Fatalf("Got(turn 1) = %d calls, %d refused before sending, %d requests; want the HEIC refused by the adapter, then 1 call",
			out.Calls, out.RefusedBeforeSending, len(srv.Requests()))
	}
	checkImage("turn 1", srv.Requests()[0].Body)
	if !strings.Contains(string(srv.Requests()[0].Body), "[Image photo.heic, as the model can read it: HEIC 64 × 48") {
		t.Errorf("Got(turn 1 request) = %.600s; want the line saying what was done", srv.Requests()[0].Body)
	}
	for n := 2; n <= 3; n++ {
		out = turn("--thread", "t1", "And now?")
		reqs := srv.Requests()
		if out.Calls != 1 || out.RefusedBeforeSending != 0 || len(reqs) != n {
			t.Fatalf("Got(turn %d) = %d calls (%d refused before sending), %d requests in all; want 1 call", n, out.Calls, out.RefusedBeforeSending, len(reqs))
		}
		checkImage("a later turn's", reqs[n-1].Body)
	}
	res := mustKeel(t, dir, environ, "threads", "show", "--db", db, "--json", "t1")
	if !strings.Contains(res.stdout, `"name": "photo.heic"`) || !strings.Contains(res.stdout, "image/hei") {
		t.Errorf("Got(stored thread) = %.600s; want the HEIC kept as sent", res.stdout)
	}
}
