package convert

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
)

// cfb is a Compound File (MS-CFB), the container of .doc, .xls, .ppt and
// .msg files: a small file system of storages and streams whose sectors
// are chained by a file allocation table. It is read from memory and
// trusts nothing: every chain is followed with a mark per sector, so a
// loop in the FAT is an error rather than an endless read; a sector past
// the end of the file, a stream longer than its chain, and a directory
// tree that loops are errors too; and what the streams read together is
// bounded by [Limits].MaxUnpacked, since many entries may share the same
// sectors.
//
// github.com/richardlehane/mscfb (in the module graph through excelize)
// reads the format too, but a stream's read allocates per sector, its
// chains are compacted in quadratic time, and its directory walk
// recurses once per entry: on a hostile file those cost more than this
// reader does in all. BenchmarkCompoundFile compares the two.
type cfb struct {
	data    []byte
	ss      int // sector size
	fat     []uint32
	minifat []uint32
	mini    []byte // the mini stream, where small streams live
	entries []cfbEntry
	budget  *budget
	lim     Limits
	sectors int // sectors in the file: no chain is longer without looping
	// Marks of the sectors a chain has passed, one bit each, for the
	// file's sectors and the mini stream's; cleared after each chain
	// (seen lists what to clear), so that a loop is found at its first
	// repeat whatever the chain's length.
	marks, miniMarks []uint64
	seen             []uint32
}

// cfbEntry is a directory entry: a storage (a folder) or a stream.
type cfbEntry struct {
	name               string
	typ                byte // 1 storage, 2 stream, 5 root
	left, right, child uint32
	start              uint32
	size               uint64
	parent             int // index of the storage holding it; -1 for the root
	kids               []int
	reachable          bool
}

const (
	cfbFree     = 0xFFFFFFFF
	cfbEnd      = 0xFFFFFFFE
	cfbFATSect  = 0xFFFFFFFD
	cfbDIFSect  = 0xFFFFFFFC
	cfbMaxSect  = 0xFFFFFFFA
	cfbNoStream = 0xFFFFFFFF
)

func cfbErr(reason string) error { return formatErr("", "corrupt Compound File: "+reason, nil) }

// openCFB parses the header, the FAT, the directory and the mini stream.
func openCFB(data []byte, lim Limits) (*cfb, error) {
	if len(data) < 512 || string(data[:8]) != string(oleMagic) {
		return nil, formatErr("", "not a Compound File ("+describeContent(data)+")", nil)
	}
	le := binary.LittleEndian
	shift := le.Uint16(data[30:])
	if shift != 9 && shift != 12 {
		return nil, cfbErr("bad sector size")
	}
	c := &cfb{data: data, ss: 1 << shift, budget: newBudget(lim.MaxUnpacked), lim: lim}
	nSectors := max(len(data)-c.ss, 0) / c.ss
	if (len(data)-c.ss)%c.ss != 0 {
		nSectors++
	}
	c.sectors = nSectors

	// The FAT's own sectors: 109 in the header, the rest in a chain of
	// DIFAT sectors, each ending with the next one's number.
	nFAT := int(le.Uint32(data[44:]))
	if nFAT > nSectors {
		return nil, cfbErr("more FAT sectors than the file has sectors")
	}
	fatSects := make([]uint32, 0, nFAT)
	for i := 0; i < 109 && len(fatSects) < nFAT; i++ {
		fatSects = append(fatSects, le.Uint32(data[76+4*i:]))
	}
	next := le.Uint32(data[68:])
	seen := map[uint32]bool{}
	for len(fatSects) < nFAT && next <= cfbMaxSect {
		if seen[next] {
			return nil, cfbErr("the DIFAT chain loops")
		}
		seen[next] = true
		sec, err := c.sector(next)
		if err != nil {
			return nil, err
		}
		per := c.ss/4 - 1
		for i := 0; i < per && len(fatSects) < nFAT; i++ {
			fatSects = append(fatSects, le.Uint32(sec[4*i:]))
		}
		next = le.Uint32(sec[4*per:])
	}
	if len(fatSects) < nFAT {
		return nil, cfbErr("the DIFAT lists fewer FAT sectors than the header says")
	}
	c.fat = make([]uint32, 0, nFAT*c.ss/4)
	for _, s := range fatSects {
		sec, err := c.sector(s)
		if err != nil {
			return nil, err
		}
		for i := 0; i < c.ss; i += 4 {
			c.fat = append(c.fat, le.Uint32(sec[i:]))
		}
	}

	dir, err := c.chainBytes(le.Uint32(data[48:]), c.fat, c.ss, nil, -1)
	if err != nil {
		return nil, err
	}
	if len(dir)/128 > lim.MaxEntries*4 {
		return nil, limitErr("", "Compound File directory entries", int64(lim.MaxEntries*4))
	}
	for i := 0; i+128 <= len(dir); i += 128 {
		c.entries = append(c.entries, parseCFBEntry(dir[i:i+128], le.Uint16(data[26:]) >= 4))
	}
	if len(c.entries) == 0 || c.entries[0].typ != 5 {
		return nil, cfbErr("no root entry")
	}
	if err := c.walkTree(); err != nil {
		return nil, err
	}

	// The mini FAT and the mini stream, the root entry's stream.
	if start := le.Uint32(data[60:]); start <= cfbMaxSect {
		mf, err := c.chainBytes(start, c.fat, c.ss, nil, -1)
		if err != nil {
			return nil, err
		}
		c.minifat = make([]uint32, len(mf)/4)
		for i := range c.minifat {
			c.minifat[i] = le.Uint32(mf[4*i:])
		}
		root := &c.entries[0]
		if c.mini, err = c.chainBytes(root.start, c.fat, c.ss, nil, int64(root.size)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func parseCFBEntry(b []byte, v4 bool) cfbEntry {
	le := binary.LittleEndian
	n := int(le.Uint16(b[64:]))
	if n > 64 {
		n = 64
	}
	u := make([]uint16, 0, n/2)
	for i := 0; i+1 < n; i += 2 {
		if r := le.Uint16(b[i:]); r != 0 {
			u = append(u, r)
		}
	}
	e := cfbEntry{name: string(utf16.Decode(u)), typ: b[66], left: le.Uint32(b[68:]), right: le.Uint32(b[72:]), child: le.Uint32(b[76:]), start: le.Uint32(b[116:]), parent: -1}
	e.size = le.Uint64(b[120:])
	if !v4 {
		e.size &= 0xFFFFFFFF // version 3 files may leave junk in the high half
	}
	return e
}

// walkTree links every entry reachable from the root to its storage,
// iteratively and marking entries, so that a directory whose siblings
// or children loop is an error.
func (c *cfb) walkTree() error {
	type item struct {
		idx    uint32
		parent int
	}
	stack := []item{{0, -1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.idx == cfbNoStream {
			continue
		}
		if int(it.idx) >= len(c.entries) {
			return cfbErr("a directory entry points past the directory")
		}
		e := &c.entries[it.idx]
		if e.reachable {
			return cfbErr("the directory tree loops")
		}
		e.reachable, e.parent = true, it.parent
		if it.parent >= 0 {
			p := &c.entries[it.parent]
			p.kids = append(p.kids, int(it.idx))
		}
		stack = append(stack, item{e.left, it.parent}, item{e.right, it.parent})
		if e.typ == 1 || e.typ == 5 {
			stack = append(stack, item{e.child, int(it.idx)})
		}
	}
	return nil
}

// sector returns sector n of the file.
func (c *cfb) sector(n uint32) ([]byte, error) {
	off := (int64(n) + 1) * int64(c.ss)
	if n > cfbMaxSect || off+int64(c.ss) > int64(len(c.data)) {
		if off < int64(len(c.data)) && n <= cfbMaxSect {
			// The last sector may be cut short by the file's end.
			b := make([]byte, c.ss)
			copy(b, c.data[off:])
			return b, nil
		}
		return nil, cfbErr("a sector chain runs past the end of the file")
	}
	return c.data[off : off+int64(c.ss)], nil
}

// chainBytes reads the chain from start in a FAT of sectors of size
// sz, from the file (src nil) or from src (the mini stream), up to want
// bytes (-1 for the whole chain). A chain that loops, runs past the end
// or holds fewer bytes than wanted is an error.
func (c *cfb) chainBytes(start uint32, fat []uint32, sz int, src []byte, want int64) ([]byte, error) {
	var out []byte
	if want >= 0 {
		if want > int64(len(c.data)) {
			return nil, cfbErr("a stream declares more bytes than the file holds")
		}
		out = make([]byte, 0, want)
	}
	marks := &c.marks
	most := c.sectors
	if src != nil {
		marks, most = &c.miniMarks, len(src)/sz
	}
	if len(*marks) < (most+63)/64 {
		*marks = make([]uint64, (most+63)/64)
	}
	defer func() {
		for _, n := range c.seen {
			(*marks)[n/64] &^= 1 << (n % 64)
		}
		c.seen = c.seen[:0]
	}()
	for n := start; n != cfbEnd; {
		if want >= 0 && int64(len(out)) >= want {
			break
		}
		if int(n) >= len(fat) {
			return nil, cfbErr("a sector chain runs past the end of the FAT")
		}
		if int(n) >= most && src == nil {
			return nil, cfbErr("a sector chain runs past the end of the file")
		}
		if int(n) < most {
			if (*marks)[n/64]&(1<<(n%64)) != 0 {
				return nil, cfbErr("a sector chain loops (FAT cycle)")
			}
			(*marks)[n/64] |= 1 << (n % 64)
			c.seen = append(c.seen, n)
		}
		var sec []byte
		if src == nil {
			var err error
			if sec, err = c.sector(n); err != nil {
				return nil, err
			}
		} else {
			off := int(n) * sz
			if off+sz > len(src) {
				return nil, cfbErr("a mini sector lies past the mini stream")
			}
			sec = src[off : off+sz]
		}
		if c.budget.left -= int64(len(sec)); c.budget.left < 0 {
			return nil, limitErr("", "unpacked bytes", c.budget.max)
		}
		out = append(out, sec...)
		n = fat[n]
	}
	if want >= 0 {
		if int64(len(out)) < want {
			return nil, cfbErr("a stream is longer than its sector chain")
		}
		out = out[:want]
	}
	return out, nil
}

// read returns a stream's bytes.
func (c *cfb) read(e *cfbEntry) ([]byte, error) {
	if e.typ != 2 {
		return nil, cfbErr("not a stream")
	}
	if e.size < 4096 {
		return c.chainBytes(e.start, c.minifat, 64, c.mini, int64(e.size))
	}
	return c.chainBytes(e.start, c.fat, c.ss, nil, int64(min(e.size, 1<<62)))
}

// child returns the entry named name (compared without case) in the
// storage at index dir, or nil.
func (c *cfb) child(dir int, name string) *cfbEntry {
	for _, k := range c.entries[dir].kids {
		if strings.EqualFold(c.entries[k].name, name) {
			return &c.entries[k]
		}
	}
	return nil
}

// stream returns the bytes of the stream named name in the root storage;
// ok is false when there is none.
func (c *cfb) stream(name string) ([]byte, bool, error) {
	e := c.child(0, name)
	if e == nil || e.typ != 2 {
		return nil, false, nil
	}
	b, err := c.read(e)
	return b, err == nil, err
}

// utf16LE decodes little-endian UTF-16 text, as the Compound File
// formats store it; an odd last byte is left out.
func utf16LE(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}
