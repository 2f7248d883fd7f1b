package keel

// LinkFetcher is an optional capability of a [Model]: its provider
// fetches some files given by http(s) URL itself, so the link can be sent
// as is. The runtime downloads every other link before the call and
// sends the bytes (see package fetch); a model that does not implement
// LinkFetcher gets no link at all.
//
// An implementation must answer truthfully for what its requests carry:
// true only when the adapter sends that file as a URL the provider
// fetches, never when it would refuse the part or send the URL where a
// file is expected. A model that wraps another should ask the wrapped
// one.
type LinkFetcher interface {
	// FetchesLink reports whether f, a file part whose content is at an
	// http(s) URL ([SourceHTTP]), goes to the provider as the link, to be
	// fetched there. It is called before each call, for each such part;
	// callers ask through the function [FetchesLink], which checks that f
	// is given by such a URL.
	FetchesLink(f FilePart) bool
}

// FetchesLink reports whether m's provider fetches the link of f itself:
// f is given by http(s) URL and m is a [LinkFetcher] that says so.
func FetchesLink(m Model, f FilePart) bool {
	if f.Source() != SourceHTTP {
		return false
	}
	lf, ok := m.(LinkFetcher)
	return ok && lf.FetchesLink(f)
}
