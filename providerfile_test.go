package keel_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/keel-go/keel"
)

// plainModel is a model without the capability.
type plainModel struct{ keel.Model }

// storeModel is a model whose provider may have a file store.
type storeModel struct {
	keel.Model
	store keel.FileStore
}

func (m storeModel) FileStore() keel.FileStore { return m.store }

// fakeStore is a file store that keeps nothing.
type fakeStore struct{}

func (fakeStore) InlineLimit() int64 { return 20 << 20 }
func (fakeStore) FileScope() string  { return "fake http://127.0.0.1 key:00" }
func (fakeStore) UploadFile(context.Context, keel.FilePart) (keel.ProviderFile, error) {
	return keel.ProviderFile{Ref: "file-1", MediaType: "application/pdf", ExpiresAt: time.Unix(1e9, 0)}, nil
}

func TestFileStoreOf(t *testing.T) {
	tests := []struct {
		name string
		m    keel.Model
		want bool
	}{
		{"no capability", plainModel{}, false},
		{"a provider with a store", storeModel{store: fakeStore{}}, true},
		{"a server without one says so", storeModel{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := keel.FileStoreOf(tt.m) != nil; got != tt.want {
				t.Errorf("Got(FileStoreOf() != nil) = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestProviderFile(t *testing.T) {
	exp := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	f := keel.ProviderFile{Ref: "file_011abc", MediaType: "application/pdf", ExpiresAt: exp}
	p := f.Part("big.pdf")
	if p.URL != "file_011abc" || p.Data != nil || p.MediaType != "application/pdf" || p.Filename != "big.pdf" || p.Source() != keel.SourceReference {
		t.Errorf("Got(Part) = %+v, source %v; want the reference by URL, a reference source", p, p.Source())
	}
	gem := keel.ProviderFile{Ref: "https://generativelanguage.googleapis.com/v1beta/files/abc"}.Part("")
	if gem.Source() != keel.SourceHTTP {
		t.Errorf("Got(a Gemini file URI's source) = %v; want SourceHTTP: Gemini names its files by https URI", gem.Source())
	}
	for _, c := range []struct {
		now  time.Time
		want bool
	}{{exp.Add(-time.Millisecond), false}, {exp, true}, {exp.Add(time.Hour), true}} {
		if got := f.Expired(c.now); got != c.want {
			t.Errorf("Got(Expired(%v)) = %v; want %v", c.now, got, c.want)
		}
	}
	if keel.FaultFileGone.BlamesFiles() {
		t.Errorf("Got(FaultFileGone.BlamesFiles()) = true; want false: the file is fine, its reference is not")
	}
}

// A model whose provider keeps files is asked for its store; the file
// then goes by reference.
func ExampleFileStoreOf() {
	var m keel.Model = storeModel{store: fakeStore{}}
	store := keel.FileStoreOf(m)
	if store == nil {
		fmt.Println("no file store: send the file inline, or handle it as refused")
		return
	}
	pf, err := store.UploadFile(context.Background(), keel.FilePart{Data: []byte("%PDF-1.7"), MediaType: "application/pdf"})
	if err != nil {
		fmt.Println(err)
		return
	}
	part := pf.Part("big.pdf")
	fmt.Println(store.InlineLimit(), part.URL, part.Filename)
	// Output:
	// 20971520 file-1 big.pdf
}
