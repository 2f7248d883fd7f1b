package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// bench runs every measurement and prints the figures.
func bench(ctx context.Context, c config, out, stderr io.Writer) error {
	t, err := setUp(ctx, c, stderr)
	if err != nil {
		return err
	}
	defer t.close()
	d := newDriver(t.url)
	mode := "child process"
	switch {
	case c.url != "":
		mode = "external"
	case c.inprocess:
		mode = "in process (figures include the driver)"
	}
	if c.url == "" {
		mode += ", " + c.store + " memory"
	}
	fmt.Fprintf(out, "keelbench: server %s (%s), model %s (%s)\n", t.url, mode, cmp.Or(t.modelURL, "(none given)"), c.model.describe())

	if _, _, err := d.latencies(ctx, c.warmup, d.textBody, d.generateURL()); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if len(c.load.clients) > 0 {
		return load(ctx, d, c, t, out)
	}
	lat, _, err := d.latencies(ctx, c.latencyCalls, d.textBody, d.generateURL())
	if err != nil {
		return fmt.Errorf("latency: %w", err)
	}
	fmt.Fprintf(out, "text generate, 1 client, %d calls: p50 %s  p90 %s  p99 %s\n", c.latencyCalls,
		ms(percentile(lat, 50)), ms(percentile(lat, 90)), ms(percentile(lat, 99)))
	if c.model.kind != modelInstant && t.modelURL != "" {
		if err := directText(ctx, d, c, t.modelURL, percentile(lat, 50), out); err != nil {
			return err
		}
	}
	if c.model.kind == modelStream {
		if err := streams(ctx, d, c, t.modelURL, out); err != nil {
			return err
		}
	}

	for round := 1; round <= 2; round++ {
		rps, err := d.throughput(ctx, c.roundCalls, c.clients)
		if err != nil {
			return fmt.Errorf("throughput round %d: %w", round, err)
		}
		fmt.Fprintf(out, "text generate, %d clients, round %d of %d calls: %.0f requests/s", c.clients, round, c.roundCalls, rps)
		if t.rss != nil {
			rss, err := t.rss()
			if err != nil {
				return fmt.Errorf("resident memory: %w", err)
			}
			fmt.Fprintf(out, "; server VmRSS %.1f MiB", float64(rss)/(1<<20))
		}
		fmt.Fprintln(out)
	}

	keelBody, direct := pdfBodies(d, c.pdfBytes)
	viaKeel, size, err := d.latencies(ctx, c.pdfCalls, keelBody, d.generateURL())
	if err != nil {
		return fmt.Errorf("pdf through keel: %w", err)
	}
	fmt.Fprintf(out, "%d byte PDF through keel, %d calls: p50 %s, response %d bytes\n", c.pdfBytes, c.pdfCalls, ms(percentile(viaKeel, 50)), size)
	if t.modelURL != "" {
		url := t.modelURL + "/v1beta/models/gemini-2.5-flash:generateContent"
		straight, _, err := d.latencies(ctx, c.pdfCalls, func() []byte { return direct }, url)
		if err != nil {
			return fmt.Errorf("pdf straight to the model: %w", err)
		}
		p50k, p50d := percentile(viaKeel, 50), percentile(straight, 50)
		fmt.Fprintf(out, "same PDF straight to the model server: p50 %s; keel/direct %.2fx\n", ms(p50d), float64(p50k)/float64(p50d))
		fw, err := startForwarder(t.modelURL)
		if err != nil {
			return err
		}
		defer fw.Close()
		forwarded, _, err := d.latencies(ctx, c.pdfCalls, func() []byte { return direct }, fw.URL()+"/v1beta/models/gemini-2.5-flash:generateContent")
		if err != nil {
			return fmt.Errorf("pdf through a forwarder: %w", err)
		}
		p50f := percentile(forwarded, 50)
		fmt.Fprintf(out, "same PDF through a server that only forwards it: p50 %s; forwarder/direct %.2fx, keel/forwarder %.2fx\n",
			ms(p50f), float64(p50f)/float64(p50d), float64(p50k)/float64(p50f))
	}
	return nil
}

// directText measures the same text call sent straight to the model
// server, and prints keel's p50 beside it: what keel adds to a call of a
// model that takes time to answer.
func directText(ctx context.Context, d *driver, c config, modelURL string, keelP50 time.Duration, out io.Writer) error {
	url := modelURL + "/v1beta/models/gemini-2.5-flash:generateContent"
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"Say hi"}]}],"systemInstruction":{"role":"user","parts":[{"text":"You are a helpful assistant."}]}}`)
	lat, _, err := d.latencies(ctx, c.latencyCalls, func() []byte { return body }, url)
	if err != nil {
		return fmt.Errorf("text straight to the model: %w", err)
	}
	p50 := percentile(lat, 50)
	fmt.Fprintf(out, "same text call straight to the model server: p50 %s; keel adds %s (%.3fx)\n",
		ms(p50), ms(keelP50-p50), float64(keelP50)/float64(p50))
	return nil
}

// streams measures text streams through keel's stream route and straight
// from the model server: time to the first text and to the end.
func streams(ctx context.Context, d *driver, c config, modelURL string, out io.Writer) error {
	first, total, err := d.streamLatencies(ctx, c.latencyCalls, d.textBody, d.streamURL(), `"type":"text-delta"`)
	if err != nil {
		return fmt.Errorf("stream through keel: %w", err)
	}
	fmt.Fprintf(out, "text stream, 1 client, %d calls: first text p50 %s, whole stream p50 %s\n", c.latencyCalls,
		ms(percentile(first, 50)), ms(percentile(total, 50)))
	if modelURL == "" {
		return nil
	}
	url := modelURL + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"Say hi"}]}]}`)
	dfirst, dtotal, err := d.streamLatencies(ctx, c.latencyCalls, func() []byte { return body }, url, `"text"`)
	if err != nil {
		return fmt.Errorf("stream straight from the model: %w", err)
	}
	fmt.Fprintf(out, "same stream straight from the model server: first text p50 %s, whole stream p50 %s; keel adds %s to the first text, %s to the whole\n",
		ms(percentile(dfirst, 50)), ms(percentile(dtotal, 50)),
		ms(percentile(first, 50)-percentile(dfirst, 50)), ms(percentile(total, 50)-percentile(dtotal, 50)))
	return nil
}

func (m modelSpec) describe() string {
	switch m.kind {
	case modelDelay:
		return fmt.Sprintf("answers after %s", m.delay)
	case modelStream:
		return fmt.Sprintf("streams %d words at %.0f tokens/s", len(strings.Fields(m.text)), m.tokensPerSecond)
	default:
		return "answers at once"
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
