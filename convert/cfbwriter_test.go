package convert_test

import (
	"encoding/binary"
	"testing"
	"unicode/utf16"
)

// cfbNode is a storage (kids, no data) or a stream of a Compound File
// written by writeCFB.
type cfbNode struct {
	name    string
	data    []byte
	kids    []*cfbNode
	storage bool
}

func stream(name string, data []byte) *cfbNode { return &cfbNode{name: name, data: data} }

func storage(name string, kids ...*cfbNode) *cfbNode {
	return &cfbNode{name: name, kids: kids, storage: true}
}

// cfbLayout says where writeCFB put things, for tests that damage them.
type cfbLayout struct {
	fatOffset int            // the byte offset of the first FAT sector
	entries   map[string]int // the byte offset of each entry, by name
	starts    map[string]int // the first sector of each regular stream
}

// writeCFB writes a version 3 Compound File (512-byte sectors) holding
// the root's children, as the format says: streams under 4096 bytes in
// the mini stream, the others in sectors of their own, siblings chained
// to the right. It is what Office and Outlook write, without the
// balancing of the directory tree that readers do not need.
func writeCFB(t testing.TB, root *cfbNode) ([]byte, cfbLayout) {
	t.Helper()
	const ss = 512
	const end, free, fatSect = 0xFFFFFFFE, 0xFFFFFFFF, 0xFFFFFFFD
	le := binary.LittleEndian
	// The entries in order, breadth first; each storage's kids chained.
	var nodes []*cfbNode
	root.storage = true
	nodes = append(nodes, root)
	for i := 0; i < len(nodes); i++ {
		nodes = append(nodes, nodes[i].kids...)
	}
	index := map[*cfbNode]int{}
	for i, n := range nodes {
		index[n] = i
	}
	// The mini stream and its FAT.
	var mini []byte
	var minifat []uint32
	miniStart := map[*cfbNode]int{}
	var big []*cfbNode
	for _, n := range nodes[1:] {
		if n.storage {
			continue
		}
		if len(n.data) >= 4096 {
			big = append(big, n)
			continue
		}
		if len(n.data) == 0 {
			miniStart[n] = end
			continue
		}
		first := len(mini) / 64
		miniStart[n] = first
		count := (len(n.data) + 63) / 64
		for i := 0; i < count; i++ {
			if i == count-1 {
				minifat = append(minifat, end)
			} else {
				minifat = append(minifat, uint32(first+i+1))
			}
		}
		padded := make([]byte, count*64)
		copy(padded, n.data)
		mini = append(mini, padded...)
	}
	sectors := func(n int) int { return (n + ss - 1) / ss }
	dirSectors := sectors(len(nodes) * 128)
	miniFATSectors := sectors(len(minifat) * 4)
	miniSectors := sectors(len(mini))
	bigSectors := 0
	for _, n := range big {
		bigSectors += sectors(len(n.data))
	}
	others := dirSectors + miniFATSectors + miniSectors + bigSectors
	nFAT := 1
	for nFAT*(ss/4) < nFAT+others {
		nFAT++
	}
	if nFAT > 109 {
		t.Fatalf("writeCFB: %d FAT sectors; the header holds 109", nFAT)
	}
	fat := make([]uint32, nFAT*(ss/4))
	for i := range fat {
		fat[i] = free
	}
	next := 0
	chain := func(count int) int {
		if count == 0 {
			return end
		}
		first := next
		for i := 0; i < count; i++ {
			if i == count-1 {
				fat[next] = end
			} else {
				fat[next] = uint32(next + 1)
			}
			next++
		}
		return first
	}
	for i := 0; i < nFAT; i++ {
		fat[next] = fatSect
		next++
	}
	dirStart := chain(dirSectors)
	miniFATStart := chain(miniFATSectors)
	miniStreamStart := chain(miniSectors)
	lay := cfbLayout{fatOffset: ss, entries: map[string]int{}, starts: map[string]int{}}
	bigStart := map[*cfbNode]int{}
	for _, n := range big {
		bigStart[n] = chain(sectors(len(n.data)))
		lay.starts[n.name] = bigStart[n]
	}
	out := make([]byte, ss*(1+next))
	h := out[:ss]
	copy(h, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	le.PutUint16(h[24:], 0x3E)
	le.PutUint16(h[26:], 3)
	le.PutUint16(h[28:], 0xFFFE)
	le.PutUint16(h[30:], 9)
	le.PutUint16(h[32:], 6)
	le.PutUint32(h[44:], uint32(nFAT))
	le.PutUint32(h[48:], uint32(dirStart))
	le.PutUint32(h[56:], 4096)
	le.PutUint32(h[60:], uint32(miniFATStart))
	le.PutUint32(h[64:], uint32(miniFATSectors))
	le.PutUint32(h[68:], end)
	for i := 0; i < 109; i++ {
		v := uint32(free)
		if i < nFAT {
			v = uint32(i)
		}
		le.PutUint32(h[76+4*i:], v)
	}
	at := func(sector int) []byte { return out[ss*(sector+1):] }
	for i, v := range fat {
		le.PutUint32(at(i / (ss / 4))[4*(i%(ss/4)):], v)
	}
	for i, v := range minifat {
		le.PutUint32(at(miniFATStart)[4*i:], v)
	}
	if len(mini) > 0 {
		copy(at(miniStreamStart), mini)
	}
	for _, n := range big {
		copy(at(bigStart[n]), n.data)
	}
	for i, n := range nodes {
		off := ss*(dirStart+1) + 128*i
		e := out[off : off+128]
		lay.entries[n.name] = off
		name := utf16.Encode([]rune(n.name))
		if len(name) > 31 {
			t.Fatalf("writeCFB: name %q is too long", n.name)
		}
		for k, u := range name {
			le.PutUint16(e[2*k:], u)
		}
		le.PutUint16(e[64:], uint16(2*len(name)+2))
		switch {
		case i == 0:
			e[66] = 5
		case n.storage:
			e[66] = 1
		default:
			e[66] = 2
		}
		e[67] = 1 // black
		le.PutUint32(e[68:], free)
		le.PutUint32(e[72:], free)
		le.PutUint32(e[76:], free)
		if n.storage && len(n.kids) > 0 {
			le.PutUint32(e[76:], uint32(index[n.kids[0]]))
		}
		switch {
		case i == 0:
			le.PutUint32(e[116:], uint32(miniStreamStart))
			le.PutUint32(e[120:], uint32(len(mini)))
		case n.storage:
		case len(n.data) >= 4096:
			le.PutUint32(e[116:], uint32(bigStart[n]))
			le.PutUint32(e[120:], uint32(len(n.data)))
		default:
			le.PutUint32(e[116:], uint32(miniStart[n]))
			le.PutUint32(e[120:], uint32(len(n.data)))
		}
	}
	// Siblings: each kid's right sibling is the next kid.
	for _, n := range nodes {
		for k := 0; k+1 < len(n.kids); k++ {
			off := ss*(dirStart+1) + 128*index[n.kids[k]]
			le.PutUint32(out[off+72:], uint32(index[n.kids[k+1]]))
		}
	}
	return out, lay
}
