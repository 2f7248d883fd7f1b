package pdf

// crypt placeholder replaced below.
type crypt struct{}

func (d *Document) newCrypt(enc Object) (*crypt, error) { return nil, ErrEncrypted }
func (c *crypt) decryptString(s []byte, ref Ref) []byte { return s }
func (c *crypt) decryptStream(s []byte, ref Ref) []byte { return s }
