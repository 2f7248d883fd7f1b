package pdf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rc4"
	"io"
)

// decryptString decrypts a string of object ref with the string filter.
// The parser calls it for the strings of objects read from the file;
// strings inside an object stream were decrypted with the stream and
// are not decrypted again.
func (c *crypt) decryptString(s []byte, ref Ref) ([]byte, error) {
	switch c.str {
	case methodNone:
		return s, nil
	case methodRC4:
		return rc4Bytes(c.objectKey(methodRC4, ref), s), nil
	}
	block, err := cbcBlock(c.objectKey(c.str, ref), s, ref)
	if err != nil || len(s) <= aes.BlockSize {
		return nil, err
	}
	out := make([]byte, len(s)-aes.BlockSize)
	cipher.NewCBCDecrypter(block, s[:aes.BlockSize]).CryptBlocks(out, s[aes.BlockSize:])
	return unpad(out, ref)
}

// streamMethod returns how a stream is encrypted: not at all for a
// cross-reference stream, nor for a metadata stream under
// /EncryptMetadata false; by the crypt filter a stream names first in
// its /Filter; else by /StmF.
func (c *crypt) streamMethod(d *Document, s *Stream, filters []Name, parms []Dict) (method, error) {
	switch d.resolve(s.Dict["Type"]) {
	case Name("XRef"):
		return methodNone, nil
	case Name("Metadata"):
		if !c.metadata {
			return methodNone, nil
		}
	}
	if len(filters) > 0 && filters[0] == "Crypt" {
		var name Object
		if parms[0] != nil {
			name = d.resolve(parms[0]["Name"])
		}
		return c.named(name)
	}
	return c.stm, nil
}

// decryptStream returns a reader of a stream's decrypted bytes. It
// decrypts as it is read, a few kilobytes at a time, so that a stream's
// size costs no memory here either. AES data is checked first, its
// length and the padding of its last block, so that a stream that does
// not decrypt fails before any of its text is read, however early a
// decoder stops reading it.
func (c *crypt) decryptStream(raw []byte, m method, ref Ref) (io.Reader, error) {
	switch m {
	case methodNone:
		return bytes.NewReader(raw), nil
	case methodRC4:
		rc, err := rc4.NewCipher(c.objectKey(m, ref))
		if err != nil {
			return nil, decryptErr(ref, "%v", err)
		}
		return cipher.StreamReader{S: rc, R: bytes.NewReader(raw)}, nil
	}
	block, err := cbcBlock(c.objectKey(m, ref), raw, ref)
	if err != nil {
		return nil, err
	}
	if len(raw) <= aes.BlockSize {
		return bytes.NewReader(nil), nil
	}
	// The last block decrypts on its own: the block before it is its IV.
	last := make([]byte, aes.BlockSize)
	cipher.NewCBCDecrypter(block, raw[len(raw)-2*aes.BlockSize:len(raw)-aes.BlockSize]).CryptBlocks(last, raw[len(raw)-aes.BlockSize:])
	text, err := unpad(last, ref)
	if err != nil {
		return nil, err
	}
	src := raw[aes.BlockSize:]
	return &cbcReader{mode: cipher.NewCBCDecrypter(block, raw[:aes.BlockSize]), src: src, left: len(src) - (aes.BlockSize - len(text))}, nil
}

// cbcBlock checks AES-CBC data (an initialization vector, then whole
// blocks) and returns the cipher of key. Empty data, or an IV alone,
// decrypts to nothing.
func cbcBlock(key, data []byte, ref Ref) (cipher.Block, error) {
	if len(data)%aes.BlockSize != 0 {
		return nil, decryptErr(ref, "its AES data of %d bytes is not whole 16-byte blocks", len(data))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, decryptErr(ref, "%v", err)
	}
	return block, nil
}

// unpad removes the PKCS#5 padding of decrypted AES data: 1 to 16
// bytes, each holding their count.
func unpad(b []byte, ref Ref) ([]byte, error) {
	if len(b) == 0 {
		return nil, decryptErr(ref, "its AES data has no padding")
	}
	n := int(b[len(b)-1])
	if n < 1 || n > aes.BlockSize || n > len(b) {
		return nil, decryptErr(ref, "its AES padding is wrong (a wrong key or damaged data)")
	}
	for _, c := range b[len(b)-n:] {
		if int(c) != n {
			return nil, decryptErr(ref, "its AES padding is wrong (a wrong key or damaged data)")
		}
	}
	return b[:len(b)-n], nil
}

// cbcReader decrypts AES-CBC data a chunk at a time, up to the padding
// (checked already).
type cbcReader struct {
	mode  cipher.BlockMode
	src   []byte // whole blocks not yet decrypted
	left  int    // bytes of text not yet read, the padding left out
	buf   []byte // decrypted bytes not yet read
	chunk [4096]byte
}

func (c *cbcReader) Read(p []byte) (int, error) {
	if len(c.buf) == 0 {
		if c.left <= 0 {
			return 0, io.EOF
		}
		n := min(len(c.src), len(c.chunk))
		c.mode.CryptBlocks(c.chunk[:n], c.src[:n])
		c.src = c.src[n:]
		c.buf = c.chunk[:min(n, c.left)]
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	c.left -= n
	return n, nil
}
