package imageconv

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// wasmEngine runs the HEIC and AVIF decoders: libheif with libde265, and
// libavif with libaom, compiled to WebAssembly (see wasmsrc.go) and run
// by wazero, a WebAssembly runtime written in Go. So no C is linked into
// keel (go install keeps working) and a decoder that a hostile file sends
// astray stays inside its sandbox: it sees no file, no network, and only
// the memory it is given.
//
// Each decoder is compiled to machine code once per engine, on first use
// (or by [Converter.Warm]); with a cache directory the machine code is
// kept on disk for later processes. Each decode runs in a fresh instance
// of the module, whose linear memory is bounded by a budget computed from
// the picture the container declares ([decoderBudget]); the instance is
// closed when the context is done, stopping the decoder mid-loop.
type wasmEngine struct {
	cacheDir string
	maxMem   int64
	// interruptible compiles the decoders with wazero's checks for a done
	// context at every loop iteration; only a benchmark sets it, to
	// measure what they cost (about five times the decode's time).
	interruptible bool

	once  sync.Once
	rt    wazero.Runtime
	err   error
	heic  compiled
	avif  compiled
	slots chan struct{}
}

// compiled is one decoder's compiled module, made once.
type compiled struct {
	once    sync.Once
	cm      wazero.CompiledModule
	err     error
	elapsed time.Duration
}

func newWasmEngine(cacheDir string, maxMem int64, concurrent int) *wasmEngine {
	return &wasmEngine{cacheDir: cacheDir, maxMem: maxMem, slots: make(chan struct{}, concurrent)}
}

// runtime returns the engine's runtime, made on first use.
func (e *wasmEngine) runtime(ctx context.Context) (wazero.Runtime, error) {
	e.once.Do(func() {
		cfg := wazero.NewRuntimeConfig().
			WithCloseOnContextDone(e.interruptible).
			WithMemoryLimitPages(uint32(min(e.maxMem>>16, 65536)))
		if e.cacheDir != "" {
			cache, err := wazero.NewCompilationCacheWithDir(e.cacheDir)
			if err != nil {
				e.err = fmt.Errorf("imageconv: decoder cache %s: %w", e.cacheDir, err)
				return
			}
			cfg = cfg.WithCompilationCache(cache)
		}
		// The runtime outlives any one call: it is made with a context
		// of its own, not the caller's, which may end first.
		rt := wazero.NewRuntimeWithConfig(context.Background(), cfg)
		if _, err := wasi_snapshot_preview1.Instantiate(context.Background(), rt); err != nil {
			e.err = fmt.Errorf("imageconv: start decoder runtime: %w", err)
			return
		}
		e.rt = rt
	})
	return e.rt, e.err
}

// module returns the compiled decoder for format, compiling it on first
// use.
func (e *wasmEngine) module(ctx context.Context, format Format) (wazero.CompiledModule, error) {
	rt, err := e.runtime(ctx)
	if err != nil {
		return nil, err
	}
	c, src := &e.heic, heifWasm
	if format == AVIF {
		c, src = &e.avif, avifWasm
	}
	c.once.Do(func() {
		start := time.Now()
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			c.err = err
			return
		}
		code, err := io.ReadAll(zr)
		if err != nil {
			c.err = err
			return
		}
		c.cm, c.err = rt.CompileModule(context.Background(), code)
		c.elapsed = time.Since(start)
	})
	if c.err != nil {
		return nil, fmt.Errorf("imageconv: compile the %s decoder: %w", format, c.err)
	}
	return c.cm, nil
}

// close releases the runtime and its compiled modules.
func (e *wasmEngine) close(ctx context.Context) error {
	if e.rt == nil {
		return nil
	}
	return e.rt.Close(ctx)
}

// instance is one decode's module instance and its memory.
type instance struct {
	mod api.Module
	mem *boundedMemory
	ctx context.Context
}

// instantiate makes a fresh instance of format's decoder whose memory may
// grow to budget bytes, and is expected to grow to about expect. The
// caller must call release.
func (e *wasmEngine) instantiate(ctx context.Context, format Format, budget, expect int64) (*instance, error) {
	cm, err := e.module(ctx, format)
	if err != nil {
		return nil, err
	}
	select {
	case e.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	mem := &boundedMemory{max: uint64(min(budget, e.maxMem)), expect: uint64(min(expect, budget, e.maxMem))}
	ictx := experimental.WithMemoryAllocator(context.WithoutCancel(ctx), experimental.MemoryAllocatorFunc(func(_, _ uint64) experimental.LinearMemory { return mem }))
	// An anonymous instance, so that decodes can run side by side; no
	// stdout or stderr: a decoder's messages are not the user's.
	mod, err := e.rt.InstantiateModule(ictx, cm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		<-e.slots
		return nil, e.wasmErr(ctx, format, mem, err)
	}
	return &instance{mod: mod, mem: mem, ctx: ictx}, nil
}

func (e *wasmEngine) release(in *instance) {
	in.mod.Close(context.Background())
	in.mem.Free()
	<-e.slots
}

// wasmErr classifies an error from a decoder: the context's error when it
// ended the call, a [*LimitError] when the decoder wanted more memory than
// its budget, else a [*FormatError] (a trap: the decoder found the file
// malformed in a way it did not handle).
func (e *wasmEngine) wasmErr(ctx context.Context, format Format, mem *boundedMemory, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) && (exit.ExitCode() == sys.ExitCodeContextCanceled || exit.ExitCode() == sys.ExitCodeDeadlineExceeded) {
		return context.Canceled
	}
	if mem != nil && mem.refused {
		return limitErr(string(format), "decoder memory bytes", int64(mem.max), int64(mem.wanted))
	}
	return formatErr(string(format), "the decoder failed", err)
}

// call calls an exported function of the instance.
func (in *instance) call(name string, args ...uint64) (uint64, error) {
	fn := in.mod.ExportedFunction(name)
	if fn == nil {
		return 0, fmt.Errorf("decoder exports no %s", name)
	}
	res, err := fn.Call(in.ctx, args...)
	if err != nil {
		return 0, err
	}
	if len(res) == 0 {
		return 0, nil
	}
	return res[0], nil
}

// malloc allocates n bytes in the instance; 0 when its memory is spent.
func (in *instance) malloc(n int) (uint32, error) {
	p, err := in.call("malloc", uint64(n))
	return uint32(p), err
}

// boundedMemory is a decoder instance's linear memory: a Go slice that
// grows (doubling, as append would) up to max bytes and then refuses, so
// that memory.grow fails inside the module and its malloc returns NULL.
type boundedMemory struct {
	max     uint64
	expect  uint64 // the first growth goes straight here
	buf     []byte
	refused bool
	wanted  uint64 // the largest size asked for
}

func (m *boundedMemory) Reallocate(size uint64) []byte {
	m.wanted = max(m.wanted, size)
	if size > m.max && m.buf != nil {
		// The first call sets the module's declared minimum, which is
		// always given: wazero cannot start an instance without it.
		m.refused = true
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	// The decoders grow their memory a little at a time, up to what the
	// picture needs: going to the expected size at once saves the copies
	// and the garbage of doubling (about as much again as the final size).
	c := max(size, min(max(2*uint64(cap(m.buf)), m.expect), m.max))
	nb := make([]byte, size, c)
	copy(nb, m.buf)
	m.buf = nb
	return nb
}

func (m *boundedMemory) Free() { m.buf = nil }

// decoderBudget is the linear memory a decode of a picture of w × h
// pixels from a file of n bytes may use. Measured (BENCHMARKS.md): libheif
// used 7.3 bytes a pixel for a 4000 × 3000 HEIC (planes, reference
// picture, the copy out), libavif 21 (YUV, RGBA, the copy out), plus a
// few megabytes of code and state. The budget allows a third more, so a
// legitimate file never meets it, while a file whose coded stream is
// larger than its container declares is stopped near what the
// declaration allows.
func decoderBudget(format Format, w, h, n int64) (budget, expect int64) {
	if format == AVIF {
		return 32<<20 + 2*n + 28*w*h, 8<<20 + n + 21*w*h
	}
	return 32<<20 + 2*n + 10*w*h, 4<<20 + n + 15*w*h/2
}

// put copies data into the instance's memory and returns its address.
func (in *instance) put(data []byte) (uint32, error) {
	p, err := in.malloc(len(data))
	if err != nil || p == 0 {
		return 0, errNoMemory(err)
	}
	if !in.mod.Memory().Write(p, data) {
		return 0, errDecoder(nil)
	}
	return p, nil
}

// u32 reads a little-endian field the decoder wrote; 0 if out of range.
func (in *instance) u32(p uint32) uint32 {
	v, _ := in.mod.Memory().ReadUint32Le(p)
	return v
}

// errNoMemory is the error for a malloc in the module that returned NULL:
// its memory budget is spent (wasmErr reports the limit).
func errNoMemory(err error) error {
	if err != nil {
		return err
	}
	return errors.New("decoder out of memory")
}

// errDecoder is the error for a decode that returned failure.
func errDecoder(err error) error {
	if err != nil {
		return err
	}
	return errors.New("the decoder could not decode the picture")
}

// decodeOut runs a module's second decode call into an output buffer of
// size bytes: it allocates the buffer, calls decode with it, and reads the
// decoded bytes back (the instance's memory, not a copy: copy what is kept
// before the instance is released). An error comes from the module (no
// memory, a failed decode) or from ctx.
func (in *instance) decodeOut(ctx context.Context, size int, decode func(configOnly uint64, out uint32) (bool, error)) ([]byte, error) {
	out, err := in.malloc(size)
	if err != nil || out == 0 {
		return nil, errNoMemory(err)
	}
	if ok, err := decode(0, out); err != nil || !ok {
		return nil, errDecoder(err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pix, ok := in.mod.Memory().Read(out, uint32(size))
	if !ok {
		return nil, errDecoder(nil)
	}
	return pix, nil
}
