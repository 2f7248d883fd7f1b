package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"time"
)

// forwarder is the least any server between a client and the model server
// must do with a request: read its body, send it on, and answer with the
// model's response. Its time is the floor under keel's PDF figure, which
// also decodes the file, hashes it, stores it and stores the answer.
type forwarder struct {
	srv    *http.Server
	ln     net.Listener
	target string
	client *http.Client
}

func startForwarder(target string) (*forwarder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second, WriteBufferSize: 64 << 10}
	f := &forwarder{ln: ln, target: target, client: &http.Client{Transport: tr}}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve)}
	go f.srv.Serve(ln)
	return f, nil
}

func (f *forwarder) URL() string { return "http://" + f.ln.Addr().String() }

func (f *forwarder) Close() { f.srv.Close() }

func (f *forwarder) serve(w http.ResponseWriter, r *http.Request) {
	// One buffer of the body's size, as keel reads it.
	var body bytes.Buffer
	if r.ContentLength > 0 {
		body.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	if _, err := body.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := f.client.Post(f.target+r.URL.Path, "application/json", &body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
