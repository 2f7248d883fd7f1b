// Package capped holds a command's output up to a limit, for every
// sandbox engine alike.
package capped

// Buffer keeps the first Max bytes written to it and notes that the rest
// was dropped; it never fails a write, so that a command is never held up
// by a full pipe or stream.
type Buffer struct {
	Max int
	// Truncated says that bytes past Max were written and dropped.
	Truncated bool
	buf       []byte
}

func (b *Buffer) Write(p []byte) (int, error) {
	room := b.Max - len(b.buf)
	if len(p) > room {
		b.Truncated = true
		b.buf = append(b.buf, p[:max(room, 0)]...)
		return len(p), nil
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Bytes returns what was kept: empty, never nil, when nothing was.
func (b *Buffer) Bytes() []byte {
	if b.buf == nil {
		return []byte{}
	}
	return b.buf
}
