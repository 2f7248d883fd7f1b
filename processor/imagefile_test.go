package processor_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	pngenc "image/png"
	"strings"
	"testing"

	"golang.org/x/image/bmp"

	"github.com/keel-go/keel"
	"github.com/keel-go/keel/convert/imageconv"
	"github.com/keel-go/keel/keeltest"
	"github.com/keel-go/keel/memory"
	"github.com/keel-go/keel/processor"
)

// picture is a 40×30 image, half red, half blue.
func picture() image.Image {
	m := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for y := 0; y < 30; y++ {
		for x := 0; x < 40; x++ {
			c := color.RGBA{255, 0, 0, 255}
			if x >= 20 {
				c = color.RGBA{0, 0, 255, 255}
			}
			m.Set(x, y, c)
		}
	}
	return m
}

func encoded(t *testing.T, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := enc(&b, picture()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func imageHandler(s *refusalsSetup) *processor.UnsupportedFileHandler {
	return processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Refusals: s.rr, Images: imageconv.Default()})
}

func TestRefusedImageFormatGoesAsOneTheModelTakes(t *testing.T) {
	s := newRefusals(t)
	s.h = imageHandler(s)
	scan := keel.FilePart{Data: encoded(t, func(b *bytes.Buffer, m image.Image) error { return bmp.Encode(b, m) }), MediaType: "image/bmp", Filename: "scan.bmp"}
	run := quietRun(userMsg(text("what colours?"), scan))
	s.fail(t, run, flash, unsupported("image/bmp"), true)
	prompt := s.call(t, run, flash, true)[0]
	if len(prompt.Parts) != 3 {
		t.Fatalf("Got(prompt) = %q; want the text, a line, the image", partTexts(prompt))
	}
	label, _ := prompt.Parts[1].(keel.TextPart)
	if !strings.HasPrefix(label.Text, "[Image scan.bmp, as the model can read it: BMP 40 × 30 → PNG 40 × 30") {
		t.Errorf("Got(label) = %q; want what was done", label.Text)
	}
	img, ok := prompt.Parts[2].(keel.FilePart)
	if !ok || img.MediaType != "image/png" {
		t.Fatalf("Got(part 2) = %#v; want a PNG", prompt.Parts[2])
	}
	decoded, err := pngenc.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, b, _ := decoded.At(5, 5).RGBA(); r>>8 != 255 || b != 0 {
		t.Errorf("Got(pixel 5,5) = %v; want red", decoded.At(5, 5))
	}
	if r, _, b, _ := decoded.At(35, 5).RGBA(); r != 0 || b>>8 != 255 {
		t.Errorf("Got(pixel 35,5) = %v; want blue", decoded.At(35, 5))
	}
	recs := run.Recoveries()
	if len(recs) != 1 || recs[0].Action != processor.OutcomeConverted || recs[0].Files[0].Conversion == nil ||
		recs[0].Files[0].Conversion.Kind != "image" || recs[0].Files[0].Conversion.As != "PNG" {
		t.Errorf("Got(recoveries) = %+v; want the image converted to PNG", recs)
	}
	if got := run.Messages[0].Parts[1].(keel.FilePart); got.MediaType != "image/bmp" {
		t.Errorf("Got(stored part) = %q; want the BMP kept", got.MediaType)
	}
	later := quietRun(userMsg(text("again"), scan))
	if got := s.call(t, later, flash, true)[0]; len(got.Parts) != 3 || got.Parts[2].(keel.FilePart).MediaType != "image/png" {
		t.Errorf("Got(a later turn's first call) = %q; want the PNG before any failure", partTexts(got))
	}
}

func TestImageToAModelThatSeesNone(t *testing.T) {
	s := newRefusals(t)
	s.h = imageHandler(s)
	logo := keel.FilePart{Data: encoded(t, func(b *bytes.Buffer, m image.Image) error { return pngenc.Encode(b, m) }), MediaType: "image/png", Filename: "logo.png"}
	run := quietRun(userMsg(text("describe"), logo))
	s.fail(t, run, flash, apiRefusal(500, keel.FaultFileType, "", "image/*", 0), true)
	prompt := s.call(t, run, flash, true)[0]
	want := []string{"describe", placeholder("logo.png"), "[Image logo.png, which the model cannot see]\nImage: PNG, 40 × 30 pixels"}
	got := partTexts(prompt)
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || !strings.HasPrefix(got[2], want[2]) {
		t.Errorf("Got(prompt) = %q; want %q…", got, want)
	}
}

func TestImageDescribedOnceByAVisionModel(t *testing.T) {
	store := memory.NewInMemory()
	logo := keel.FilePart{Data: encoded(t, func(b *bytes.Buffer, m image.Image) error { return pngenc.Encode(b, m) }), MediaType: "image/png", Filename: "logo.png"}
	for server := 1; server <= 2; server++ {
		// Each server has its own describer and handler; they share the
		// store.
		vision := keeltest.NewModel(keeltest.Reply{Respond: func(req *keel.Request) keeltest.Reply {
			return keeltest.Reply{Text: "A flag, red on the left and blue on the right. Text: none."}
		}})
		describer := &processor.ModelDescriber{Model: vision, Store: store, Images: imageconv.Default()}
		s := newRefusals(t)
		s.h = processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Refusals: s.rr, Images: imageconv.Default(), DescribeWith: describer})
		for turn := 1; turn <= 2; turn++ {
			run := quietRun(userMsg(text("describe"), logo))
			s.fail(t, run, flash, apiRefusal(500, keel.FaultFileType, "", "image/*", 0), true)
			got := partTexts(s.call(t, run, flash, true)[0])
			want := "[Image logo.png, which the model cannot see]\nImage: PNG, 40 × 30 pixels"
			if len(got) != 3 || !strings.HasPrefix(got[2], want) ||
				!strings.HasSuffix(got[2], "\n[Described by keeltest/scripted]\nA flag, red on the left and blue on the right. Text: none.") {
				t.Fatalf("server %d, turn %d: Got(prompt) = %q; want what the file says, then the description", server, turn, got)
			}
		}
		wantCalls := 0
		if server == 1 {
			wantCalls = 1
		}
		if vision.Calls() != wantCalls {
			t.Errorf("server %d: Got(vision model calls) = %d; want %d: described once ever", server, vision.Calls(), wantCalls)
		}
		if server == 1 {
			req := vision.Requests()[0]
			parts := req.Messages[0].Parts
			if fp, ok := parts[1].(keel.FilePart); len(parts) != 2 || !ok || fp.MediaType != "image/png" || parts[0].(keel.TextPart).Text != processor.DescribePrompt {
				t.Errorf("Got(vision request) = %+v; want the prompt and the image", parts)
			}
		}
	}
}

func TestImageDescriptionFailureLeavesTheTurn(t *testing.T) {
	vision := keeltest.NewModel(keeltest.Reply{Err: errors.New("vision model down")})
	s := newRefusals(t)
	s.h = processor.NewUnsupportedFileHandlerWith(processor.UnsupportedFileOptions{Refusals: s.rr, Images: imageconv.Default(),
		DescribeWith: &processor.ModelDescriber{Model: vision}})
	logo := keel.FilePart{Data: encoded(t, func(b *bytes.Buffer, m image.Image) error { return pngenc.Encode(b, m) }), MediaType: "image/png", Filename: "logo.png"}
	run := quietRun(userMsg(text("describe"), logo))
	s.fail(t, run, flash, apiRefusal(500, keel.FaultFileType, "", "image/*", 0), true)
	got := partTexts(s.call(t, run, flash, true)[0])
	if len(got) != 3 || strings.Contains(got[2], "Described by") || !strings.HasPrefix(got[2], "[Image logo.png, which the model cannot see]") {
		t.Errorf("Got(prompt) = %q; want what the file says, without a description", got)
	}
}
