package pdf

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
)

// ErrPassword is returned for a document encrypted with a user password
// that is not empty: it cannot be opened without that password.
var ErrPassword = errorf("the document is encrypted and needs a password")

// method is how a crypt filter encrypts.
type method uint8

const (
	methodNone  method = iota // the Identity filter, or /CFM /None
	methodRC4                 // RC4 with a key per object (/V2)
	methodAESV2               // AES-128-CBC with a key per object
	methodAESV3               // AES-256-CBC with the file key itself
)

// crypt decrypts the strings and streams of a document encrypted by the
// standard security handler (ISO 32000-2 §7.6.4), opened with the empty
// user password: revisions 2 to 4 (RC4 of 40 to 128 bits, AES-128) and
// 5 and 6 (AES-256).
type crypt struct {
	key      []byte
	stm, str method
	// filters are the /CF crypt filters, for a stream that names one in
	// its own /Crypt filter.
	filters map[Name]method
	// metadata is /EncryptMetadata: when false, metadata streams are
	// stored in the clear.
	metadata bool
	bad      []badFilter
}

// padding pads a password to 32 bytes for revisions 2 to 4.
var padding = []byte{
	0x28, 0xbf, 0x4e, 0x5e, 0x4e, 0x75, 0x8a, 0x41, 0x64, 0x00, 0x4e, 0x56, 0xff, 0xfa, 0x01, 0x08,
	0x2e, 0x2e, 0x00, 0xb6, 0xd0, 0x68, 0x3e, 0x80, 0x2f, 0x0c, 0xa9, 0xfe, 0x64, 0x53, 0x69, 0x7a,
}

// newCrypt reads the /Encrypt dictionary and derives the file key from
// the empty user password, checking it against /U. The dictionary's
// strings are read as stored: it is never encrypted itself.
func (d *Document) newCrypt(enc Object) (*crypt, error) {
	e := d.resolveDict(enc)
	if e == nil {
		return nil, errorf("the trailer's /Encrypt is not a dictionary")
	}
	if f, _ := d.resolve(e["Filter"]).(Name); f != "Standard" {
		return nil, errorf("the document is encrypted by the security handler /%s, which this reader does not support (only /Standard)", f)
	}
	v, _ := d.resolve(e["V"]).(int64)
	r, _ := d.resolve(e["R"]).(int64)
	o, _ := d.resolve(e["O"]).(String)
	u, _ := d.resolve(e["U"]).(String)
	c := &crypt{metadata: true, filters: map[Name]method{}}
	if b, ok := d.resolve(e["EncryptMetadata"]).(bool); ok {
		c.metadata = b
	}
	var n int
	switch {
	case r >= 2 && r <= 4:
		var err error
		if n, err = d.legacyKeyLen(e, v, r); err != nil {
			return nil, err
		}
	case r == 5 || r == 6:
		n = 32
	default:
		return nil, errorf("the standard security handler's revision %d is not supported", r)
	}
	// The filters first: a key that cannot fit them is a broken
	// dictionary, not a password to ask for.
	if v < 4 {
		c.stm, c.str = methodRC4, methodRC4
	} else {
		for name, o := range d.resolveDict(e["CF"]) {
			m, err := filterMethod(d.resolveDict(o), n)
			if err != nil {
				// Kept for the error, should a stream name it.
				c.bad = append(c.bad, badFilter{name, err})
				continue
			}
			c.filters[name] = m
		}
		var err error
		if c.stm, err = c.named(d.resolve(e["StmF"])); err != nil {
			return nil, err
		}
		if c.str, err = c.named(d.resolve(e["StrF"])); err != nil {
			return nil, err
		}
	}
	var err error
	if r <= 4 {
		c.key, err = d.legacyKey(e, r, n, o, u, c.metadata)
	} else {
		c.key, err = aes256Key(r, e, d, o, u)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// badFilter is a crypt filter of /CF that cannot be used.
type badFilter struct {
	name Name
	err  error
}

// named returns the method of a crypt filter named by /StmF, /StrF or a
// stream's /Crypt filter; no name is the Identity filter.
func (c *crypt) named(o Object) (method, error) {
	name, _ := o.(Name)
	if name == "" || name == "Identity" {
		return methodNone, nil
	}
	m, ok := c.filters[name]
	if !ok {
		for _, b := range c.bad {
			if b.name == name {
				return 0, b.err
			}
		}
		return 0, errorf("the crypt filter /%s is not defined", name)
	}
	return m, nil
}

// filterMethod reads a crypt filter dictionary, checking that a file key
// of n bytes fits its cipher.
func filterMethod(f Dict, n int) (method, error) {
	cfm, _ := f["CFM"].(Name)
	switch cfm {
	case "None", "":
		return methodNone, nil
	case "V2":
		return methodRC4, nil
	case "AESV2":
		if n != 16 {
			return 0, errorf("the key length of %d bits does not fit AES-128", n*8)
		}
		return methodAESV2, nil
	case "AESV3":
		if n != 32 {
			return 0, errorf("the key length of %d bits does not fit AES-256", n*8)
		}
		return methodAESV3, nil
	}
	return 0, errorf("the crypt method /%s is not supported", cfm)
}

// legacyKeyLen returns the length in bytes of the file key of revisions
// 2 to 4: 40 bits for version 1, else /Length (128 bits by default for
// version 4).
func (d *Document) legacyKeyLen(e Dict, v, r int64) (int, error) {
	bits := int64(40)
	switch v {
	case 1:
	case 2, 4:
		if l, ok := d.resolve(e["Length"]).(int64); ok {
			bits = l
		} else if v == 4 {
			bits = 128
		}
	default:
		return 0, errorf("the standard security handler's version %d is not supported", v)
	}
	if bits < 40 || bits > 128 || bits%8 != 0 {
		return 0, errorf("the key length of %d bits is not 40 to 128 in steps of 8", bits)
	}
	if r == 2 {
		return 5, nil
	}
	return int(bits / 8), nil
}

// legacyKey derives the file key of n bytes of revisions 2 to 4 from the
// empty user password (algorithm 2 of ISO 32000-2 §7.6.4.3.2) and checks
// it against /U (algorithms 4 and 5).
func (d *Document) legacyKey(e Dict, r int64, n int, o, u String, metadata bool) ([]byte, error) {
	if len(o) < 32 || len(u) < 32 {
		return nil, errorf("the /O or /U string is shorter than 32 bytes")
	}
	p, _ := d.resolve(e["P"]).(int64)
	h := md5.New()
	h.Write(padding) // the empty password, padded
	h.Write(o[:32])
	h.Write([]byte{byte(p), byte(p >> 8), byte(p >> 16), byte(p >> 24)})
	h.Write(d.fileID())
	if r >= 4 && !metadata {
		h.Write([]byte{0xff, 0xff, 0xff, 0xff})
	}
	key := h.Sum(nil)
	if r >= 3 {
		for i := 0; i < 50; i++ {
			sum := md5.Sum(key[:n])
			key = sum[:]
		}
	}
	key = key[:n]

	var want, got []byte
	if r == 2 {
		got = rc4Bytes(key, padding)
		want = u[:32]
	} else {
		h := md5.New()
		h.Write(padding)
		h.Write(d.fileID())
		got = rc4Bytes(key, h.Sum(nil))
		k := make([]byte, len(key))
		for i := byte(1); i <= 19; i++ {
			for j := range key {
				k[j] = key[j] ^ i
			}
			got = rc4Bytes(k, got)
		}
		want = u[:16]
	}
	if !bytes.Equal(got, want) {
		return nil, ErrPassword
	}
	return key, nil
}

// fileID returns the first string of the trailer's /ID, which revisions
// 2 to 4 mix into the key.
func (d *Document) fileID() []byte {
	ids := d.resolveArray(d.trailer["ID"])
	if len(ids) == 0 {
		return nil
	}
	id, _ := d.resolve(ids[0]).(String)
	return id
}

func rc4Bytes(key, src []byte) []byte {
	c, err := rc4.NewCipher(key)
	if err != nil {
		// Keys here are 5 to 16 bytes; rc4 takes 1 to 256.
		panic(err)
	}
	out := make([]byte, len(src))
	c.XORKeyStream(out, src)
	return out
}

// aes256Key derives the file key of revisions 5 and 6 from the empty
// user password: /U holds a hash, a validation salt and a key salt; the
// hash of the password and the key salt decrypts /UE into the file key
// (algorithms 2.A and 2.B of ISO 32000-2 §7.6.4.3.3-4).
func aes256Key(r int64, e Dict, d *Document, o, u String) ([]byte, error) {
	ue, _ := d.resolve(e["UE"]).(String)
	if len(o) < 48 || len(u) < 48 || len(ue) < 32 {
		return nil, errorf("the /O, /U or /UE string is too short for AES-256")
	}
	hashOf := func(salt []byte) []byte {
		if r == 5 {
			s := sha256.Sum256(salt) // the empty password, then the salt
			return s[:]
		}
		return hash2B(nil, salt, nil)
	}
	if !bytes.Equal(hashOf(u[32:40]), u[:32]) {
		return nil, ErrPassword
	}
	block, err := aes.NewCipher(hashOf(u[40:48]))
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	cipher.NewCBCDecrypter(block, make([]byte, 16)).CryptBlocks(key, ue[:32])
	return key, nil
}

// hash2B is the hash of revision 6 (algorithm 2.B): SHA-256 of the
// password and salt, then at least 64 rounds, each encrypting 64 copies
// of the password and the hash with AES-128 and hashing the result with
// SHA-256, -384 or -512 as the result says, until the last byte of a
// round's ciphertext is at most the round's number less 32. That byte
// is below 256, so the rounds end by the 288th.
func hash2B(password, salt, udata []byte) []byte {
	h := sha256.New()
	h.Write(password)
	h.Write(salt)
	h.Write(udata)
	k := h.Sum(nil)
	var e []byte
	for round := 0; round < 64 || int(e[len(e)-1]) > round-32; round++ {
		one := append(append(append([]byte(nil), password...), k...), udata...)
		k1 := bytes.Repeat(one, 64)
		block, _ := aes.NewCipher(k[:16])
		e = make([]byte, len(k1))
		cipher.NewCBCEncrypter(block, k[16:32]).CryptBlocks(e, k1)
		// The first 16 bytes as a number modulo 3 is their sum modulo
		// 3, since 256 is 1 modulo 3.
		sum := 0
		for _, b := range e[:16] {
			sum += int(b)
		}
		var next hash.Hash
		switch sum % 3 {
		case 0:
			next = sha256.New()
		case 1:
			next = sha512.New384()
		default:
			next = sha512.New()
		}
		next.Write(e)
		k = next.Sum(nil)
	}
	return k[:32]
}

// objectKey is the key of one object's strings and streams: for RC4 and
// AES-128, the MD5 of the file key, the object's number and generation
// (and "sAlT" for AES), cut to the file key's length plus 5, at most 16
// bytes (algorithm 1); for AES-256, the file key itself.
func (c *crypt) objectKey(m method, ref Ref) []byte {
	if m == methodAESV3 {
		return c.key
	}
	h := md5.New()
	h.Write(c.key)
	h.Write([]byte{byte(ref.Num), byte(ref.Num >> 8), byte(ref.Num >> 16), byte(ref.Gen), byte(ref.Gen >> 8)})
	if m == methodAESV2 {
		h.Write([]byte("sAlT"))
	}
	return h.Sum(nil)[:min(len(c.key)+5, 16)]
}

// decryptError is the cause of a string or stream that does not
// decrypt. Unlike other malformed data, which reads as null or ends a
// stream quietly, it is reported: it means the text cannot be trusted.
type decryptError struct{ why string }

func (e *decryptError) Error() string { return e.why }

func decryptErr(ref Ref, format string, args ...any) error {
	return &FormatError{Reason: fmt.Sprintf("object %d %d does not decrypt", ref.Num, ref.Gen), Err: &decryptError{fmt.Sprintf(format, args...)}}
}

func isDecrypt(err error) bool {
	var de *decryptError
	return errors.As(err, &de)
}
