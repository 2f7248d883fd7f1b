package pdf

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"io"
)

// ErrUnsupportedFilter is returned for a stream encoded with a filter
// this package does not decode (images' DCT, JPX, CCITT, JBIG2, and LZW).
var ErrUnsupportedFilter = errors.New("pdf: unsupported stream filter")

// budgetReader counts decoded bytes against the document's budget and
// fails with a *LimitError past it.
type budgetReader struct {
	r io.Reader
	d *Document
}

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.d.unpacked += int64(n)
	if b.d.unpacked > b.d.lim.MaxUnpacked {
		return n, &LimitError{Limit: "unpacked bytes", Max: b.d.lim.MaxUnpacked}
	}
	return n, err
}

// open returns a reader of a stream's decrypted and decoded bytes.
// Decoding errors after some data (a truncated deflate stream) end the
// data quietly, as every reader of PDFs does; the budget's and
// decryption's errors are not quiet.
func (d *Document) open(s *Stream) (io.Reader, error) {
	filters := d.resolve(s.Dict["Filter"])
	params := d.resolve(s.Dict["DecodeParms"])
	if params == nil {
		params = d.resolve(s.Dict["DP"])
	}
	var names []Name
	var parms []Dict
	switch f := filters.(type) {
	case Name:
		names = []Name{f}
		parms = []Dict{d.resolveDict(params)}
	case Array:
		pa, _ := params.(Array)
		for i, o := range f {
			n, _ := d.resolve(o).(Name)
			names = append(names, n)
			var p Dict
			if i < len(pa) {
				p = d.resolveDict(pa[i])
			}
			parms = append(parms, p)
		}
	}
	if len(names) > 8 {
		return nil, errorf("stream has %d filters", len(names))
	}
	var r io.Reader = bytes.NewReader(s.Raw)
	if d.crypt != nil {
		m, err := d.crypt.streamMethod(d, s, names, parms)
		if err != nil {
			return nil, err
		}
		if r, err = d.crypt.decryptStream(s.Raw, m, s.ref); err != nil {
			return nil, err
		}
	}
	for i, name := range names {
		switch name {
		case "FlateDecode", "Fl":
			r = newInflater(r)
		case "ASCII85Decode", "A85":
			r = ascii85.NewDecoder(&a85Trimmer{r: bufio.NewReader(r)})
		case "ASCIIHexDecode", "AHx":
			r = &hexReader{r: bufio.NewReader(r)}
		case "RunLengthDecode", "RL":
			r = &runLengthReader{r: bufio.NewReader(r)}
		case "Crypt":
		default:
			return nil, ErrUnsupportedFilter
		}
		if p := parms[i]; p != nil {
			if pred, _ := p["Predictor"].(int64); pred >= 2 {
				cols, _ := p["Columns"].(int64)
				colors, _ := p["Colors"].(int64)
				bpc, _ := p["BitsPerComponent"].(int64)
				r = newPredictor(r, int(pred), int(max(cols, 1)), int(max(colors, 1)), int(max(bpc, 8)))
			}
		}
	}
	return &quietReader{r: &budgetReader{r: r, d: d}}, nil
}

// decodeAll decodes a whole stream into memory: for the small streams
// read whole (cross-reference and object streams, CMaps).
func (d *Document) decodeAll(s *Stream) ([]byte, error) {
	r, err := d.open(s)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	_, err = buf.ReadFrom(r)
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// quietReader ends the data at a decoding error, keeping the budget's
// and decryption's.
type quietReader struct{ r io.Reader }

func (q *quietReader) Read(p []byte) (int, error) {
	n, err := q.r.Read(p)
	if err != nil && err != io.EOF && !isFatal(err) {
		err = io.EOF
	}
	return n, err
}

// inflater reads zlib data, or raw deflate data when the zlib header is
// missing (some producers omit it).
type inflater struct {
	src io.Reader
	r   io.Reader
}

func newInflater(r io.Reader) io.Reader { return &inflater{src: r} }

func (f *inflater) Read(p []byte) (int, error) {
	if f.r == nil {
		br := bufio.NewReader(f.src)
		head, _ := br.Peek(2)
		if len(head) == 2 && head[0]&0x0f == 8 && (uint16(head[0])<<8|uint16(head[1]))%31 == 0 {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return 0, err
			}
			f.r = zr
		} else {
			f.r = flate.NewReader(br)
		}
	}
	return f.r.Read(p)
}

// a85Trimmer ends ASCII85 data at its "~>" and drops the "<~" some
// writers put first.
type a85Trimmer struct {
	r     *bufio.Reader
	start bool
	done  bool
}

func (t *a85Trimmer) Read(p []byte) (int, error) {
	if t.done {
		return 0, io.EOF
	}
	if !t.start {
		t.start = true
		if head, _ := t.r.Peek(2); string(head) == "<~" {
			t.r.Discard(2)
		}
	}
	n := 0
	for n < len(p) {
		c, err := t.r.ReadByte()
		if err != nil || c == '~' {
			t.done = true
			break
		}
		p[n] = c
		n++
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

type hexReader struct {
	r    *bufio.Reader
	done bool
}

func (h *hexReader) Read(p []byte) (int, error) {
	n := 0
	var hi byte
	half := false
	for n < len(p) && !h.done {
		c, err := h.r.ReadByte()
		if err != nil || c == '>' {
			h.done = true
			break
		}
		v, ok := unhex(c)
		if !ok {
			continue
		}
		if half {
			p[n] = hi<<4 | v
			n++
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		p[n] = hi << 4
		n++
	}
	if n == 0 && h.done {
		return 0, io.EOF
	}
	return n, nil
}

type runLengthReader struct {
	r       *bufio.Reader
	run     int
	lit     int
	b       byte
	stopped bool
}

func (rl *runLengthReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case rl.run > 0:
			p[n] = rl.b
			n++
			rl.run--
		case rl.lit > 0:
			c, err := rl.r.ReadByte()
			if err != nil {
				rl.stopped = true
				rl.lit = 0
				continue
			}
			p[n] = c
			n++
			rl.lit--
		case rl.stopped:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		default:
			c, err := rl.r.ReadByte()
			if err != nil || c == 128 {
				rl.stopped = true
				continue
			}
			if c < 128 {
				rl.lit = int(c) + 1
			} else {
				b, err := rl.r.ReadByte()
				if err != nil {
					rl.stopped = true
					continue
				}
				rl.b, rl.run = b, 257-int(c)
			}
		}
	}
	return n, nil
}

// predictor undoes PNG (10-15) and TIFF (2) prediction row by row.
type predictor struct {
	r          io.Reader
	pred       int
	bpp        int
	rowLen     int
	prev, cur  []byte
	out        []byte
	err        error
	tiffDoneOK bool
}

func newPredictor(r io.Reader, pred, cols, colors, bpc int) io.Reader {
	if cols > 1<<20 || colors > 32 || bpc > 16 {
		return &predictor{err: errorf("predictor parameters out of range")}
	}
	bpp := max(1, colors*bpc/8)
	rowLen := (cols*colors*bpc + 7) / 8
	return &predictor{r: r, pred: pred, bpp: bpp, rowLen: rowLen, prev: make([]byte, rowLen), cur: make([]byte, rowLen+1)}
}

func (p *predictor) Read(b []byte) (int, error) {
	for len(p.out) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		if p.pred == 2 {
			row := p.cur[:p.rowLen]
			if _, err := io.ReadFull(p.r, row); err != nil {
				p.err = io.EOF
				return 0, p.err
			}
			for i := p.bpp; i < len(row); i++ {
				row[i] += row[i-p.bpp]
			}
			p.out = row
			break
		}
		if _, err := io.ReadFull(p.r, p.cur); err != nil {
			p.err = io.EOF
			return 0, p.err
		}
		f, row := p.cur[0], p.cur[1:]
		for i := range row {
			var left, up, ul byte
			if i >= p.bpp {
				left = row[i-p.bpp]
				ul = p.prev[i-p.bpp]
			}
			up = p.prev[i]
			switch f {
			case 1:
				row[i] += left
			case 2:
				row[i] += up
			case 3:
				row[i] += byte((int(left) + int(up)) / 2)
			case 4:
				row[i] += paeth(left, up, ul)
			}
		}
		copy(p.prev, row)
		p.out = p.prev
	}
	n := copy(b, p.out)
	p.out = p.out[n:]
	return n, nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
