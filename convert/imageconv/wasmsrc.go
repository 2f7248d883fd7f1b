package imageconv

import (
	_ "unsafe" // for go:linkname

	// The decoders' WebAssembly modules are built and published by these
	// two packages (lib/Makefile in each: libheif 1.18.2 with libde265
	// 1.0.15; libavif 1.1.1 with libaom 3.10.0, decoding only), each
	// embedded, gzipped, in an unexported variable. Their own Decode
	// functions run the modules with no memory bound, no cancellation, and
	// the process's stdout and stderr, and first try a libheif.so or
	// libavif.so found on the machine, running native C on the file
	// instead of the sandbox. So this package runs the same modules
	// itself (wasm.go) and takes only their bytes. A version of either
	// package that renames the variable fails to link, loudly; one that
	// changes the decode function's signature fails the tests, which
	// decode real files. Update both together with heicdec.go and
	// avifdec.go.
	_ "github.com/gen2brain/avif"
	_ "github.com/gen2brain/heic"
)

//go:linkname heifWasm github.com/gen2brain/heic.heifWasm
var heifWasm []byte

//go:linkname avifWasm github.com/gen2brain/avif.decodeWasm
var avifWasm []byte
