package convert

// StreamOfCompoundFile returns a stream of the input's Compound File, for
// the tests of the legacy formats to use as fuzzing seeds.
func StreamOfCompoundFile(in *Input, name string) ([]byte, error) {
	c, err := in.cfb(Limits{}.withDefaults())
	if err != nil {
		return nil, err
	}
	b, ok, err := c.stream(name)
	if !ok && err == nil {
		return nil, formatErr("", "no stream "+name, nil)
	}
	return b, err
}

// ReadCompoundFile opens a Compound File and reads every stream, for the
// benchmark that compares the reader with mscfb; it returns the bytes
// read.
func ReadCompoundFile(data []byte) (int, error) {
	c, err := openCFB(data, Limits{}.withDefaults())
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range c.entries {
		if e := &c.entries[i]; e.typ == 2 && e.reachable {
			b, err := c.read(e)
			if err != nil {
				return n, err
			}
			n += len(b)
		}
	}
	return n, nil
}
