package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync/atomic"
	"time"
)

// driver sends the benchmark's requests.
type driver struct {
	client *http.Client
	url    string
	seq    atomic.Int64
	run    string // makes thread ids unique across runs against one database
}

func newDriver(url string) *driver {
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 90 * time.Second}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &driver{client: &http.Client{Transport: tr, Timeout: 60 * time.Second}, url: url, run: fmt.Sprintf("%x", b)}
}

// post sends body and returns the response size; a status other than 200
// is an error.
func (d *driver) post(ctx context.Context, url string, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != 200 {
		return int(n), fmt.Errorf("POST %s: status %d", url, resp.StatusCode)
	}
	return int(n), nil
}

func (d *driver) textBody() []byte {
	return fmt.Appendf(nil, `{"messages":"Say hi","memory":{"thread":"bench-%s-%d","resource":"bench"}}`, d.run, d.seq.Add(1))
}

func (d *driver) generateURL() string { return d.url + "/api/agents/assistant/generate" }

func (d *driver) streamURL() string { return d.url + "/api/agents/assistant/stream" }

// streamLatencies sends n streaming requests one after another and returns,
// for each, the time to the first line holding marker and to the end of
// the body.
func (d *driver) streamLatencies(ctx context.Context, n int, body func() []byte, url, marker string) (first, total []time.Duration, err error) {
	for range n {
		req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body()))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := d.client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		var firstAt time.Duration
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if firstAt == 0 && bytes.Contains(sc.Bytes(), []byte(marker)) {
				firstAt = time.Since(start)
			}
		}
		resp.Body.Close()
		if err := sc.Err(); err != nil {
			return nil, nil, err
		}
		if resp.StatusCode != 200 {
			return nil, nil, fmt.Errorf("POST %s: status %d", url, resp.StatusCode)
		}
		if firstAt == 0 {
			return nil, nil, fmt.Errorf("POST %s: no line holding %s", url, marker)
		}
		first, total = append(first, firstAt), append(total, time.Since(start))
	}
	return first, total, nil
}

// latencies sends n requests one after another and returns their times.
func (d *driver) latencies(ctx context.Context, n int, body func() []byte, url string) ([]time.Duration, int, error) {
	out := make([]time.Duration, 0, n)
	size := 0
	for range n {
		b := body()
		start := time.Now()
		s, err := d.post(ctx, url, b)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, time.Since(start))
		size = s
	}
	return out, size, nil
}

// throughput sends n text generates from clients goroutines and returns
// the requests per second.
func (d *driver) throughput(ctx context.Context, n, clients int) (float64, error) {
	r, err := d.loadPhase(ctx, n, clients, d.textBody, &target{})
	return r.rps, err
}

// percentile returns the p-th percentile (0 < p <= 100) of ds by the
// nearest-rank method; ds is sorted in place.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	rank := int(p/100*float64(len(ds))+0.999999) - 1
	return ds[min(max(rank, 0), len(ds)-1)]
}

// pdfBodies returns the body of a keel generate with the PDF attached
// (a new thread each call) and the same request as Gemini's API takes it.
func pdfBodies(d *driver, size int) (keel func() []byte, direct []byte) {
	pdf := make([]byte, size)
	_, _ = rand.Read(pdf)
	copy(pdf, "%PDF-1.7\n")
	data := base64.StdEncoding.EncodeToString(pdf)
	keel = func() []byte {
		return fmt.Appendf(nil, `{"memory":{"thread":"pdf-%s-%d","resource":"bench"},"messages":[{"role":"user","content":[`+
			`{"type":"text","text":"Summarize this report"},{"type":"file","data":"data:application/pdf;base64,%s","mediaType":"application/pdf","filename":"report.pdf"}]}]}`,
			d.run, d.seq.Add(1), data)
	}
	direct = fmt.Appendf(nil, `{"contents":[{"role":"user","parts":[{"text":"Summarize this report"},{"inlineData":{"mimeType":"application/pdf","data":"%s"}}]}],`+
		`"systemInstruction":{"role":"user","parts":[{"text":"You are a helpful assistant."}]}}`, data)
	return keel, direct
}
